import { createHash, timingSafeEqual } from "node:crypto";
import { TENANT_ID_PATTERN } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";

/**
 * Who is calling, as the gateway vouches for it. The gateway authenticates game servers and admins
 * (JWTs) and forwards each call with:
 *   authorization: Bearer <SERVICE_TOKEN>   (this service trusts nothing else)
 *   x-arena-tenant: <tenantId>              (every read and write is scoped to it)
 *   x-arena-role:   server | admin          (admin may also configure games and seasons)
 */
export interface Caller {
  tenantId: string;
  role: "server" | "admin";
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
const tenantPattern = new RegExp(TENANT_ID_PATTERN);

function unauthenticated(detail: string): AppError {
  return new AppError("UNAUTHENTICATED", detail, {
    headers: { "WWW-Authenticate": 'Bearer realm="arena-stats"' },
  });
}

/**
 * Requires the service token (compared in constant time: both sides hashed first, so the length
 * of what was sent leaks nothing) and the tenant and role headers; anything else is a 401.
 */
export function requireServiceToken(serviceToken: string) {
  const expected = digest(serviceToken);
  return (req: Request, res: Response, next: NextFunction): void => {
    const match = /^Bearer +(\S+)\s*$/i.exec(req.get("authorization") ?? "");
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw unauthenticated("This service answers the gateway only: Authorization: Bearer <SERVICE_TOKEN>");
    }
    const tenantId = req.get("x-arena-tenant") ?? "";
    if (!tenantPattern.test(tenantId)) throw unauthenticated("x-arena-tenant must name the caller's tenant");
    const role = req.get("x-arena-role");
    if (role !== "server" && role !== "admin") throw unauthenticated("x-arena-role must be server or admin");
    const caller: Caller = { tenantId, role };
    res.locals.caller = caller;
    next();
  };
}

/** The caller `requireServiceToken` admitted. */
export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

/** Admin-only operations (configuring games, starting seasons): 403 for a game server. */
export function requireAdmin(res: Response): Caller {
  const caller = callerOf(res);
  if (caller.role !== "admin") throw new AppError("FORBIDDEN", "This operation needs the admin role");
  return caller;
}
