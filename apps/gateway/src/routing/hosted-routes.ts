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
 * limit, then stats (leaderboard reads through the replica's cache). The table is the only list of routes; nothing here names a path.
 */
export function hostedRoutes({ authenticator, rateLimit, upstream }: HostedRoutesDeps): Router {
  const router = Router();
  const authenticate = authenticator.middleware();
  const forward: RequestHandler = (req, res) => upstream.forward(req, res);
  // Leaderboard reads may be answered from this replica's cache, after the same checks.
  const forwardCached: RequestHandler = (req, res) => upstream.forwardCached(req, res);
  for (const op of HOSTED_OPERATIONS as readonly HostedOperation[]) {
    const last = op.operationId === "getLeaderboard" ? forwardCached : forward;
    const handlers = [authenticate, requireRole(op.roles), rateLimit, last];
    const route = router.route(expressPath(op.path));
    if (op.method === "GET") route.get(...handlers);
    else if (op.method === "POST") route.post(...handlers);
    else if (op.method === "PUT") route.put(...handlers);
    else route.delete(...handlers);
  }
  return router;
}
