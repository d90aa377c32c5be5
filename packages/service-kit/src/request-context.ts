import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Histogram } from "prom-client";
import type { Lifecycle } from "./health.js";
import { accessLineWriter, type Logger } from "./logger.js";
import type { ServiceMetrics } from "./metrics.js";

declare global {
  namespace Express {
    interface Request {
      /** The request id: the caller's `x-request-id` when it is sane, else a new UUID. */
      id: string;
      /** A logger bound to this request's id (made on first use). */
      log: Logger;
    }
  }
}

export const REQUEST_ID_HEADER = "x-request-id";
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Paths probed every few seconds: measured, never logged. */
const UNLOGGED_PATHS = new Set(["/livez", "/readyz", "/metrics"]);

/**
 * What requestContext keeps on a request, in one record under a symbol (not part of the
 * request's API): each property added to a request costs on every request, and many turn V8's
 * fast object into a slow one.
 */
const context = Symbol("requestContext");
const ownLogger = Symbol("ownLogger");

interface Context {
  startedAt: bigint;
  logger: Logger;
  finish: (req: ContextRequest, res: Response, startedAt: bigint) => void;
}

interface ContextRequest extends Request {
  [context]?: Context;
  [ownLogger]?: Logger;
}

// `req.log` is made on first use: most requests log one access line and nothing else, and a pino
// child per request (bindings serialized, a new object) cost ~4 µs, a fifth of the kit's. On express's
// request prototype, once; a handler may still assign its own (`req.log = logger`).
Object.defineProperty(express.request, "log", {
  configurable: true,
  get(this: ContextRequest): Logger | undefined {
    const base = this[context]?.logger;
    if (this[ownLogger] === undefined && base !== undefined) {
      this[ownLogger] = base.child({ requestId: this.id });
    }
    return this[ownLogger];
  },
  set(this: ContextRequest, logger: Logger) {
    this[ownLogger] = logger;
  },
});

/**
 * The status recorded for a request whose client hung up before its answer was sent (nginx's "client
 * closed request"): its access line and metric say so, instead of the request leaving no trace.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * One listener for every response, on `close` (after `finish` for an answer sent in full, and also
 * for one whose client left first): the request's own work is kept on it, no closure per request.
 */
function onClose(this: Response): void {
  const req = this.req as ContextRequest;
  const own = req[context];
  if (own !== undefined) own.finish(req, this, own.startedAt);
}

/**
 * The duration histogram's series by method, route and status, each bound once: prom-client's
 * `observe(labels, value)` checks and hashes the labels on every call.
 */
function boundSeries(histogram: Histogram<"method" | "route" | "status">) {
  const series = new Map<string, { observe(value: number): void }>();
  return (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let bound = series.get(key);
    if (bound === undefined) {
      bound = histogram.labels({ method, route, status: String(status) });
      series.set(key, bound);
    }
    return bound;
  };
}

/**
 * Request id in and out, a per-request logger, one access-log line and one metric per request
 * (status 499 for one whose client hung up before the answer was sent); with a lifecycle,
 * `Connection: close` on every answer once shutdown has begun.
 */
export function requestContext(logger: Logger, metrics: ServiceMetrics, lifecycle?: Lifecycle) {
  const writeAccessLine = accessLineWriter(logger);
  const series = boundSeries(metrics.httpDuration);
  const finish = (req: ContextRequest, res: Response, startedAt: bigint): void => {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    // The route pattern, not the URL, keeps label cardinality bounded and ids out of metrics.
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : "unmatched";
    const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST;
    series(req.method, route, status).observe(seconds);
    // Only the path is logged: query strings may carry tokens (`/ws?authorization=`). The original
    // URL's, because inside a mounted router `req.path` has lost the mount prefix.
    const url = req.originalUrl;
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (UNLOGGED_PATHS.has(path) || !logger.isLevelEnabled("info")) return;
    writeAccessLine({
      requestId: req.id,
      method: req.method,
      path,
      status,
      durationMs: Math.round(seconds * 1e4) / 10,
    });
  };
  return (req: ContextRequest, res: Response, next: NextFunction): void => {
    const startedAt = process.hrtime.bigint();
    const incoming = req.headers[REQUEST_ID_HEADER];
    req.id = typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req[context] = { startedAt, logger, finish };
    res.setHeader(REQUEST_ID_HEADER, req.id);
    // While draining, tell keep-alive clients to reconnect elsewhere.
    if (lifecycle?.shuttingDown) res.setHeader("Connection", "close");
    res.on("close", onClose);
    next();
  };
}
