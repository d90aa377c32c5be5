import { expressPath, HOSTED_OPERATIONS, type HostedOperation } from "@arena/contracts";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { type Authenticator, assertRole } from "../access/authentication.js";
import type { StatsUpstream } from "./stats-proxy.js";

export interface HostedRoutesDeps {
  authenticator: Authenticator;
  rateLimit: { count(req: Request, res: Response): Promise<void> };
  upstream: StatsUpstream;
}

/**
 * Every hosted REST operation of the action table: token check, role check, the tenant's rate
 * limit, then stats (leaderboard reads through the replica's cache). The table is the only list of routes; nothing here names a path.
 */
export function hostedRoutes({ authenticator, rateLimit, upstream }: HostedRoutesDeps): Router {
  const router = Router();
  for (const op of HOSTED_OPERATIONS as readonly HostedOperation[]) {
    // Leaderboard reads may be answered from this replica's cache, after the same checks.
    const last = op.operationId === "getLeaderboard" ? upstream.forwardCached : upstream.forward;
    // One handler runs the checks in order (a 401, 403 or 429 is thrown before the next), rather
    // than four middlewares: each layer is a router step and a promise on every proxied call.
    const handler: RequestHandler = async (req, res) => {
      const principal = await authenticator.authenticate(req.get("authorization"));
      req.principal = principal;
      assertRole(op.roles, principal.role);
      await rateLimit.count(req, res);
      await last.call(upstream, req, res);
    };
    const route = router.route(expressPath(op.path));
    if (op.method === "GET") route.get(handler);
    else if (op.method === "POST") route.post(handler);
    else if (op.method === "PUT") route.put(handler);
    else route.delete(handler);
  }
  return router;
}
