import { isAscii } from "node:buffer";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { AppError } from "./app-error.js";
import {
  createLifecycle,
  type HealthRouteOptions,
  type Lifecycle,
  mountHealthRoutes,
  type ReadinessCheck,
} from "./health.js";
import type { Logger } from "./logger.js";
import { createMetrics, type ServiceMetrics } from "./metrics.js";
import { asAppError, sendProblem } from "./problem-response.js";
import { requestContext } from "./request-context.js";
import { routeFallback } from "./route-fallback.js";

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  /** Largest accepted body, in bytes or a size string ("1mb"); larger bodies get a 413 problem. */
  bodyLimit?: number | string;
  /** Media types parsed as JSON, besides application/json (the gateway adds x-amz-json-1.1). */
  jsonTypes?: string[];
  readiness?: ReadinessCheck[];
  /**
   * What /metrics and /readyz show on this (public) app; an internet-facing service serves them
   * on an internal port instead (mountHealthRoutes on a second app). Default: everything.
   */
  publicHealth?: HealthRouteOptions;
  /** Keep the undecoded JSON body as `req.rawBody` (the matchmaker copies tickets from it). */
  keepRawBody?: boolean;
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
  app.set("trust proxy", "loopback, linklocal, uniquelocal");
  app.use(requestContext(options.logger, metrics));
  app.use((_req, res, next) => {
    // While draining, tell keep-alive clients to reconnect elsewhere.
    if (lifecycle.shuttingDown) res.setHeader("Connection", "close");
    next();
  });
  mountHealthRoutes(app, options.readiness ?? [], lifecycle, metrics, options.publicHealth);
  const jsonTypes = ["application/json", "application/*+json", ...(options.jsonTypes ?? [])];
  const limit = options.bodyLimit ?? "1mb";
  app.use(
    options.keepRawBody
      ? [express.raw({ limit, type: jsonTypes }), parseRawJson]
      : express.json({ limit, type: jsonTypes, strict: false }),
  );
  options.routes(app, kit);
  app.use(routeFallback(app));
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const appError = asAppError(err);
    if (appError.status >= 500) req.log.error({ err: appError.cause ?? appError }, appError.detail);
    else req.log.debug({ code: appError.code }, appError.detail);
    sendProblem(req, res, appError);
  });
  return { app, ...kit };
}

/**
 * JSON from the raw bytes, keeping them as `req.rawBody`: one UTF-8 decode of the whole body and
 * one JSON.parse, where body-parser's JSON reader decodes chunk by chunk into a string.
 */
function parseRawJson(req: Request, _res: Response, next: NextFunction): void {
  if (!Buffer.isBuffer(req.body)) {
    req.body = undefined;
    next();
    return;
  }
  const bytes = req.body;
  const charset = (req.get("content-type") ?? "").match(/;\s*charset=([^;\s]+)/i)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    next(new AppError("UNSUPPORTED_MEDIA_TYPE", `Charset ${charset} is not supported; send UTF-8 JSON`));
    return;
  }
  // An ASCII body decodes to the same text as latin1, which is a plain copy; keep it for reuse.
  const asciiText = isAscii(bytes) ? bytes.toString("latin1") : undefined;
  req.rawBody = { bytes, encoding: "utf-8", ...(asciiText === undefined ? {} : { asciiText }) };
  try {
    req.body = JSON.parse(asciiText ?? bytes.toString("utf8"));
  } catch (err) {
    next(
      new AppError("MALFORMED_JSON", `Request body is not valid JSON: ${(err as Error).message}`, {
        errors: [{ pointer: "", detail: "is not valid JSON" }],
      }),
    );
    return;
  }
  next();
}

/** Handlers that need a JSON body call this first: no body (or a non-JSON one) is a clear problem. */
export function requireJsonBody(req: Request): unknown {
  if (req.body !== undefined) return req.body;
  const hasBody = Number(req.get("content-length") ?? 0) > 0 || req.get("transfer-encoding") !== undefined;
  if (hasBody && !req.is(["application/json", "application/*+json"])) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Content-Type ${req.get("content-type") ?? "(none)"} is not supported; send application/json`,
    );
  }
  throw AppError.validation([{ pointer: "", detail: "a JSON request body is required" }]);
}
