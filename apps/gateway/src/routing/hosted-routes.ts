import { expressPath, HOSTED_OPERATIONS, type HostedOperation } from "@arena/contracts";
import { type RequestHandler, Router } from "express";
import { type Authenticator, requireRole } from "../access/authentication.js";
import type { StatsUpstream } from "./stats-proxy.js";

export interface HostedRoutesDeps {
  authenticator: Authenticator;
  rateLimit: RequestHandler;
  upstream: StatsUpstream;
}

/**
 * Every hosted REST operation of the action table: token check, role check, the tenant's rate
 * limit, then stats. The table is the only list of routes; nothing here names a path.
 */
export function hostedRoutes({ authenticator, rateLimit, upstream }: HostedRoutesDeps): Router {
  const router = Router();
  const authenticate = authenticator.middleware();
  const forward: RequestHandler = (req, res) => upstream.forward(req, res);
  for (const op of HOSTED_OPERATIONS as readonly HostedOperation[]) {
    const handlers = [authenticate, requireRole(op.roles), rateLimit, forward];
    const route = router.route(expressPath(op.path));
    if (op.method === "GET") route.get(...handlers);
    else if (op.method === "POST") route.post(...handlers);
    else if (op.method === "PUT") route.put(...handlers);
    else route.delete(...handlers);
  }
  return router;
}
