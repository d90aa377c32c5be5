import {
  INTERNAL_API_VERSION,
  INTERNAL_API_VERSION_HEADER,
  internalApiVersionOf,
  OLDEST_SUPPORTED_INTERNAL_API_VERSION,
  servesInternalApiVersion,
  TENANT_ID_PATTERN,
} from "@arena/contracts";
import { AppError, requireBearerToken } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";

/**
 * Who is calling, as the gateway vouches for it. The gateway authenticates game servers and admins
 * (JWTs) and forwards each call with:
 *   authorization: Bearer <SERVICE_TOKEN>   (this service trusts nothing else)
 *   x-arena-tenant: <tenantId>              (every read and write is scoped to it)
 *   x-arena-role:   server | admin          (admin may also configure games and seasons)
 *   x-arena-internal-api: <version>         (the gateway's internal API version; missing = 1)
 * Every answer names this side's version in the same header.
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
 * headers; anything else is a 401. A gateway older than the oldest internal API version this
 * release serves gets a 400 naming both versions.
 */
export function requireServiceToken(serviceToken: string) {
  const checkToken = requireBearerToken(serviceToken, REALM);
  return (req: Request, res: Response, next: NextFunction): void => {
    checkToken(req, res, () => {});
    res.setHeader(INTERNAL_API_VERSION_HEADER, String(INTERNAL_API_VERSION));
    requireServedVersion(req.get(INTERNAL_API_VERSION_HEADER));
    const tenantId = req.get("x-arena-tenant") ?? "";
    if (!tenantPattern.test(tenantId)) throw unauthenticated("x-arena-tenant must name the caller's tenant");
    const role = req.get("x-arena-role");
    if (role !== "server" && role !== "admin") throw unauthenticated("x-arena-role must be server or admin");
    const caller: Caller = { tenantId, role };
    res.locals.caller = caller;
    next();
  };
}

function requireServedVersion(header: string | undefined): void {
  if (servesInternalApiVersion(internalApiVersionOf(header))) return;
  throw new AppError(
    "INTERNAL_API_VERSION_UNSUPPORTED",
    `${INTERNAL_API_VERSION_HEADER} ${JSON.stringify(header)} is not served: this stats (version ${INTERNAL_API_VERSION}) serves gateways of version ${OLDEST_SUPPORTED_INTERNAL_API_VERSION} or later`,
  );
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
