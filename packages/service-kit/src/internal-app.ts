import { randomUUID } from "node:crypto";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { listenWithAppServer } from "./app-server.js";
import { type HealthRouteOptions, type Lifecycle, mountHealthRoutes, type ReadinessCheck } from "./health.js";
import { DEFAULT_MAX_JSON_DEPTH, jsonBodyParser, whenABodyIsSent } from "./json-body.js";
import type { Logger } from "./logger.js";
import type { ServiceMetrics } from "./metrics.js";
import { asAppError, sendProblem } from "./problem-response.js";
import { requestContext } from "./request-context.js";
import { routeFallback } from "./route-fallback.js";

export interface InternalAppOptions {
  /** The same checks as the public app's. */
  readiness: readonly ReadinessCheck[];
  lifecycle: Lifecycle;
  metrics: ServiceMetrics;
  logger: Logger;
  /**
   * Operator routes that only this port serves (the gateway's admin API, when the operator moves
   * it here), after the health routes: each logged and measured as on the public app, with JSON
   * bodies of at most `bodyLimit` read by the kit's parser.
   */
  routes?: (app: Express) => void;
  /** Largest body those routes accept (default "1mb"). */
  bodyLimit?: number | string;
}

/**
 * The public app's `publicHealth` when an internal app serves the rest: `/readyz` says only ready
 * or not, and `/metrics` is not there.
 */
export const PUBLIC_HEALTH_BESIDE_INTERNAL_APP: HealthRouteOptions = {
  metrics: false,
  detailedReadiness: false,
};

/**
 * `/livez`, `/metrics` and the detailed `/readyz` (each check by name, and why it fails) on an app
 * of their own, for a port only the operator's network reaches; an internet-facing service's
 * public app then passes `publicHealth: PUBLIC_HEALTH_BESIDE_INTERNAL_APP`. It shares the public
 * app's lifecycle and metrics, so both say the same; every other path (but `routes`) is a 404 problem.
 */
export function createInternalApp(options: InternalAppOptions): Express {
  const { readiness, lifecycle, metrics, logger } = options;
  const app = express();
  app.disable("x-powered-by");
  listenWithAppServer(app);
  app.use((req: Request, _res: Response, next: NextFunction) => {
    req.id = randomUUID();
    req.log = logger;
    next();
  });
  mountHealthRoutes(app, readiness, lifecycle, metrics);
  if (options.routes) {
    app.use(requestContext(logger, metrics));
    const types = ["application/json", "application/*+json"];
    const settings = { limit: options.bodyLimit ?? "1mb", types, maxDepth: DEFAULT_MAX_JSON_DEPTH };
    app.use(whenABodyIsSent(jsonBodyParser(settings)));
    options.routes(app);
  }
  app.use(routeFallback(app));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(req, res, asAppError(err));
  });
  return app;
}
