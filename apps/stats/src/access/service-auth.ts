import { TENANT_ID_PATTERN } from "@arena/contracts";
import { AppError, requireBearerToken } from "@arena/service-kit";
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

const tenantPattern = new RegExp(TENANT_ID_PATTERN);
const REALM = "arena-stats";

function unauthenticated(detail: string): AppError {
  return new AppError("UNAUTHENTICATED", detail, {
    headers: { "WWW-Authenticate": `Bearer realm="${REALM}"` },
  });
}

/**
 * Requires the service token (the kit's constant-time bearer check) and the tenant and role
 * headers; anything else is a 401.
 */
export function requireServiceToken(serviceToken: string) {
  const checkToken = requireBearerToken(serviceToken, REALM);
  return (req: Request, res: Response, next: NextFunction): void => {
    checkToken(req, res, () => {});
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
