import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { AppError } from "./app-error.js";
import { listenWithAppServer } from "./app-server.js";
import {
  createLifecycle,
  type HealthRouteOptions,
  type Lifecycle,
  mountHealthRoutes,
  type ReadinessCheck,
} from "./health.js";
import {
  type BodyParser,
  DEFAULT_MAX_JSON_DEPTH,
  jsonBodyParser,
  sentABody,
  whenABodyIsSent,
} from "./json-body.js";
import type { Logger } from "./logger.js";
import { createMetrics, type ServiceMetrics } from "./metrics.js";
import { asAppError, sendProblem } from "./problem-response.js";
import { requestContext } from "./request-context.js";
import { routeFallback } from "./route-fallback.js";
import { parseTrustProxy, type TrustProxy } from "./trust-proxy.js";

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  /** Largest accepted body, in bytes or a size string ("1mb"); larger bodies get a 413 problem. */
  bodyLimit?: number | string;
  /** Media types parsed as JSON, besides application/json (the gateway adds x-amz-json-1.1). */
  jsonTypes?: string[];
  readiness?: ReadinessCheck[];
  /**
   * The app's own JSON body parser, given the kit's limit, media types and depth (default
   * `jsonBodyParser`). The matchmaker's keeps the bytes to copy tickets from them.
   */
  bodyParser?: BodyParser;
  /**
   * Deepest nesting of arrays and objects accepted in a JSON body (default 64); deeper bodies get a
   * 400 problem. `Infinity` turns the check off, for an app that bounds depth in its own scan.
   */
  maxJsonDepth?: number;
  /**
   * Which proxies' `X-Forwarded-For` is believed for `req.ip` (the `TRUST_PROXY` setting, see
   * `parseTrustProxy`). Default none: `req.ip` is the peer address, which a client cannot forge.
   */
  trustProxy?: TrustProxy | string;
  /**
   * What /metrics and /readyz show on this (public) app; an internet-facing service serves them
   * on an internal port instead (mountHealthRoutes on a second app). Default: everything.
   */
  publicHealth?: HealthRouteOptions;
  /** Mounts the app's own routes; called after the kit's middleware and before its fallbacks. */
  routes: (app: Express, kit: ServiceKitContext) => void;
}

export interface ServiceKitContext {
  metrics: ServiceMetrics;
  lifecycle: Lifecycle;
  logger: Logger;
}

export interface ServiceApp extends ServiceKitContext {
  app: Express;
}

/**
 * The express app every service starts from: request ids and logs, health and metrics routes,
 * JSON bodies with a size limit, the app's routes, then 404/405 and one problem+json error handler.
 */
export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const app = express();
  const metrics = createMetrics(options.name);
  const lifecycle = createLifecycle();
  const kit = { metrics, lifecycle, logger: options.logger };

  app.disable("x-powered-by");
  // An ETag hashes every answer body; for API answers (megabytes of matches) it is pure cost.
  app.set("etag", false);
  // Trusting a proxy lets it name the client; trusting by default would let any client on a private
  // network name itself whatever it likes (per-address limits then count nothing).
  app.set("trust proxy", parseTrustProxy(options.trustProxy ?? false));
  listenWithAppServer(app);
  app.use(requestContext(options.logger, metrics, lifecycle));
  mountHealthRoutes(app, options.readiness ?? [], lifecycle, metrics, options.publicHealth);
  const jsonTypes = ["application/json", "application/*+json", ...(options.jsonTypes ?? [])];
  const limit = options.bodyLimit ?? "1mb";
  const bodyParser = options.bodyParser ?? jsonBodyParser;
  app.use(
    whenABodyIsSent(
      bodyParser({ limit, types: jsonTypes, maxDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH }),
    ),
  );
  options.routes(app, kit);
  app.use(routeFallback(app));
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const appError = asAppError(err);
    // 503 is a state the service reports (not ready, draining, a dependency down), not a fault in
    // the code: a line per answer without a stack, where 500s keep theirs.
    if (appError.code === "SERVICE_UNAVAILABLE") req.log.warn({ code: appError.code }, appError.detail);
    else if (appError.status >= 500) req.log.error({ err: appError.cause ?? appError }, appError.detail);
    else req.log.debug({ code: appError.code }, appError.detail);
    sendProblem(req, res, appError);
  });
  return { app, ...kit };
}

/** Handlers that need a JSON body call this first: no body (or a non-JSON one) is a clear problem. */
export function requireJsonBody(req: Request): unknown {
  if (req.body !== undefined) return req.body;
  const hasBody = sentABody(req);
  if (hasBody && !req.is(["application/json", "application/*+json"])) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Content-Type ${req.get("content-type") ?? "(none)"} is not supported; send application/json`,
    );
  }
  throw AppError.validation([{ pointer: "", detail: "a JSON request body is required" }]);
}

/**
 * For operations whose body may be left out (an empty confirmation): `whenAbsent` when nothing
 * was sent, the parsed body otherwise; a body that is not JSON is the same problem as above.
 */
export function optionalJsonBody(req: Request, whenAbsent: unknown): unknown {
  if (req.body === undefined && !sentABody(req)) return whenAbsent;
  return requireJsonBody(req);
}
