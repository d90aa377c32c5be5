import { expressPath, HOSTED_OPERATIONS, type HostedOperation } from "@arena/contracts";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { Router } from "express";
import { type Authenticator, assertRole } from "../access/authentication.js";
import type { StatsUpstream } from "./stats-proxy.js";

export interface HostedRoutesDeps {
  authenticator: Authenticator;
  rateLimit: { count(req: Request, res: Response): Promise<void> };
  upstream: StatsUpstream;
}

/** A hosted operation's path split at `/`: a literal segment (lower case), or null for a parameter. */
type Shape = Array<string | null>;

/**
 * Every hosted REST operation of the action table: token check, role check, the tenant's rate
 * limit, then stats (leaderboard reads through the replica's cache). The table is the only list
 * of routes; nothing here names a path.
 *
 * A request whose method and path plainly name one operation (the path split at `/` has the
 * operation's literal segments, in any case, and a non-empty segment for each parameter) is found
 * by one lookup on its method and segment count, rather than by the express router trying each
 * route's pattern in turn (the router was the largest share of the gateway's own time on a
 * proxied call). Anything else (HEAD, OPTIONS, a trailing slash, no match) goes on to the same
 * routes on express's router, as before; the lookup matches a subset of what the router
 * matches, in the table's order, so both pick the same operation.
 */
export function hostedRoutes({ authenticator, rateLimit, upstream }: HostedRoutesDeps): Router {
  const router = Router();
  const byMethodAndLength = new Map<string, Array<{ shape: Shape; handler: RequestHandler }>>();
  const handlers: Array<{ op: HostedOperation; handler: RequestHandler }> = [];
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
    handlers.push({ op, handler });
    const shape = op.path.split("/").map((s) => (s.startsWith("{") ? null : s.toLowerCase()));
    const key = `${op.method} ${shape.length}`;
    byMethodAndLength.set(key, [...(byMethodAndLength.get(key) ?? []), { shape, handler }]);
  }
  router.use((req: Request, res: Response, next: NextFunction) => {
    const url = req.url;
    const query = url.indexOf("?");
    const segments = (query === -1 ? url : url.slice(0, query)).split("/");
    const candidates = byMethodAndLength.get(`${req.method} ${segments.length}`);
    if (candidates !== undefined) {
      for (const { shape, handler } of candidates) {
        if (matches(shape, segments)) {
          Promise.resolve(handler(req, res, next)).catch(next);
          return;
        }
      }
    }
    next();
  });
  for (const { op, handler } of handlers) {
    const route = router.route(expressPath(op.path));
    if (op.method === "GET") route.get(handler);
    else if (op.method === "POST") route.post(handler);
    else if (op.method === "PUT") route.put(handler);
    else route.delete(handler);
  }
  return router;
}

function matches(shape: Shape, segments: string[]): boolean {
  for (let i = 0; i < shape.length; i++) {
    const literal = shape[i];
    const segment = segments[i]!;
    if (literal === null ? segment === "" : literal !== segment && literal !== segment.toLowerCase())
      return false;
  }
  return true;
}
