import { randomUUID } from "node:crypto";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { type HealthRouteOptions, type Lifecycle, mountHealthRoutes, type ReadinessCheck } from "./health.js";
import type { Logger } from "./logger.js";
import type { ServiceMetrics } from "./metrics.js";
import { asAppError, sendProblem } from "./problem-response.js";
import { routeFallback } from "./route-fallback.js";

export interface InternalAppOptions {
  /** The same checks as the public app's. */
  readiness: readonly ReadinessCheck[];
  lifecycle: Lifecycle;
  metrics: ServiceMetrics;
  logger: Logger;
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
 * app's lifecycle and metrics, so both say the same; every other path is a 404 problem.
 */
export function createInternalApp(options: InternalAppOptions): Express {
  const { readiness, lifecycle, metrics, logger } = options;
  const app = express();
  app.disable("x-powered-by");
  app.use((req: Request, _res: Response, next: NextFunction) => {
    req.id = randomUUID();
    req.log = logger;
    next();
  });
  mountHealthRoutes(app, readiness, lifecycle, metrics);
  app.use(routeFallback(app));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(req, res, asAppError(err));
  });
  return app;
}
