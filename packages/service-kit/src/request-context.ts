import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "./logger.js";
import type { ServiceMetrics } from "./metrics.js";

declare global {
  namespace Express {
    interface Request {
      /** The request id: the caller's `x-request-id` when it is sane, else a new UUID. */
      id: string;
      /** A logger bound to this request's id. */
      log: Logger;
    }
  }
}

export const REQUEST_ID_HEADER = "x-request-id";
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id in and out, a per-request logger, one access-log line and one metric per request. */
export function requestContext(logger: Logger, metrics: ServiceMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get(REQUEST_ID_HEADER);
    req.id = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.log = logger.child({ requestId: req.id });
    res.setHeader(REQUEST_ID_HEADER, req.id);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The route pattern, not the URL, keeps label cardinality bounded and ids out of metrics.
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : "unmatched";
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      // Only the path is logged: query strings may carry tokens (`/ws?authorization=`). The original
      // URL's, because inside a mounted router `req.path` has lost the mount prefix.
      const path = req.originalUrl.split("?")[0];
      if (path === "/livez" || path === "/readyz" || path === "/metrics") return;
      req.log.info(
        {
          method: req.method,
          path,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e4) / 10,
        },
        "request completed",
      );
    });
    next();
  };
}
