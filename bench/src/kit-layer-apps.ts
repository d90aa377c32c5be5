import {
  createLifecycle,
  createLogger,
  createMetrics,
  createServiceApp,
  DEFAULT_MAX_JSON_DEPTH,
  jsonBodyParser,
  type Logger,
  mountHealthRoutes,
  requestContext,
  whenABodyIsSent,
} from "@arena/service-kit";
import express, { type Express, type Request, type Response } from "express";
import { pino } from "pino";
import { CONSTANT_ANSWER } from "./constant-answer.js";

/** The apps the service-kit layer benchmarks compare (kit-layers.ts, kit-layers-in-process.ts). */

/** The one route of every variant: `GET /seasons` answers the constant answer. */
export const answer = (_req: Request, res: Response): void => {
  res.type("application/json").send(CONSTANT_ANSWER);
};

/** Access lines go to /dev/null, one write per line as to stdout, so their whole cost is measured. */
export function devNullLogger(level: string): Logger {
  const sink = pino.destination({ dest: "/dev/null", sync: true });
  return createLogger({ name: "kit-layers", level, destination: sink as unknown as NodeJS.WritableStream });
}

/** Express 5 as the kit sets it up (no x-powered-by, no ETag), nothing mounted. */
export function plainApp(): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  return app;
}

/** The kit's layers, in the kit's order (see `layered`). */
export type KitLayer = "context" | "log" | "health" | "body";

/**
 * The kit's pieces added one at a time to plain express, in the kit's order: `context` (request
 * id, metric, `req.log` made lazily, hooks), `log` (the access line at info), `health` (the /livez,
 * /readyz, /metrics routes a request passes), `body` (the body parser's guard); then the route.
 */
export function layered(layers: readonly KitLayer[]): Express {
  const app = plainApp();
  const metrics = createMetrics("kit-layers");
  const lifecycle = createLifecycle();
  if (layers.includes("context")) {
    app.use(requestContext(devNullLogger(layers.includes("log") ? "info" : "warn"), metrics, lifecycle));
  }
  if (layers.includes("health")) mountHealthRoutes(app, [], lifecycle, metrics);
  if (layers.includes("body")) {
    const settings = { limit: "1mb", types: ["application/json"], maxDepth: DEFAULT_MAX_JSON_DEPTH };
    app.use(whenABodyIsSent(jsonBodyParser(settings)));
  }
  app.get("/seasons", answer);
  return app;
}

/** createServiceApp itself: request ids, access lines at info, metrics, limits, fallbacks. */
export function kitApp(): Express {
  return createServiceApp({
    name: "kit-layers",
    logger: devNullLogger("info"),
    routes: (routes) => {
      routes.get("/seasons", answer);
    },
  }).app;
}
