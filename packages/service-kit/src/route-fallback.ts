import type { Express, NextFunction, Request, Response } from "express";
import { AppError } from "./app-error.js";

interface Layer {
  route?: { methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  /** router 2 (express 5) answers with the part of the path it matched, and sets no `layer.path`. */
  match(path: string): false | { path: string };
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** The methods that some route of `stack` answers for `path`, walking mounted routers too. */
function allowedMethods(stack: readonly Layer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== "_all") into.add(method.toUpperCase());
      }
      if (layer.route.methods._all) for (const m of METHODS) into.add(m);
    } else if (layer.handle?.stack) {
      // A router mounted at `/admin` sees `/admin/licenses/x` as `/licenses/x`.
      const rest = path.slice(matched.path.length) || "/";
      allowedMethods(layer.handle.stack, rest, into);
    }
  }
}

/**
 * The last route: a path that exists under another method is 405 with `Allow`, anything else 404.
 * Express only knows "no route matched", so the router's own table is asked which methods would.
 */
export function routeFallback(app: Express) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack;
    const allowed = new Set<string>();
    allowedMethods(stack, req.path, allowed);
    if (allowed.has("GET")) allowed.add("HEAD");
    if (allowed.size > 0 && !allowed.has(req.method)) {
      const allow = [...allowed].sort().join(", ");
      next(
        new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${req.path}; use ${allow}`, {
          headers: { Allow: allow },
        }),
      );
      return;
    }
    next(new AppError("ROUTE_NOT_FOUND", `No route for ${req.method} ${req.path}`));
  };
}
