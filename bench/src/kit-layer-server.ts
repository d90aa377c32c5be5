import { createServer, type Server } from "node:http";
import {
  createAppServer,
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

/**
 * One of the servers the service-kit layer benchmark compares (`KIT_VARIANT`, see VARIANTS), each
 * answering `GET /seasons` with the constant answer. Access lines go to /dev/null, one write per
 * line as to stdout, so their whole cost is measured.
 */
const answer = (_req: Request, res: Response) => {
  res.type("application/json").send(CONSTANT_ANSWER);
};

function logger(level: string): Logger {
  const sink = pino.destination({ dest: "/dev/null", sync: true });
  return createLogger({ name: "kit-layers", level, destination: sink as unknown as NodeJS.WritableStream });
}

function bare(): Server {
  return createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(CONSTANT_ANSWER),
      });
      res.end(CONSTANT_ANSWER);
    });
  });
}

function plainApp(): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  return app;
}

/** Express's prototypes set on node's request and response, one handler called directly: no router. */
function prototypes(): Server {
  const app = plainApp();
  return createServer((req, res) => {
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    (req as Request).res = res as Response;
    (res as Response).req = req as Request;
    answer(req as Request, res as Response);
  });
}

/**
 * The kit's pieces added one at a time to plain express on the kit's server, in the kit's order:
 * `context` (request id, metric, `req.log` made lazily, hooks), `log` (the access line at info),
 * `health` (the /livez, /readyz, /metrics routes a request passes), `body` (the body parser's guard).
 */
function layered(layers: readonly string[]): Express {
  const app = plainApp();
  const metrics = createMetrics("kit-layers");
  const lifecycle = createLifecycle();
  if (layers.includes("context")) {
    app.use(requestContext(logger(layers.includes("log") ? "info" : "warn"), metrics, lifecycle));
  }
  if (layers.includes("health")) mountHealthRoutes(app, [], lifecycle, metrics);
  if (layers.includes("body")) {
    const settings = { limit: "1mb", types: ["application/json"], maxDepth: DEFAULT_MAX_JSON_DEPTH };
    app.use(whenABodyIsSent(jsonBodyParser(settings)));
  }
  app.get("/seasons", answer);
  return app;
}

/** createServiceApp itself: request ids, access log at info, metrics, limits, fallbacks. */
function kitApp(): Express {
  return createServiceApp({
    name: "kit-layers",
    logger: logger("info"),
    routes: (routes) => {
      routes.get("/seasons", answer);
    },
  }).app;
}

const VARIANTS: Record<string, () => Server> = {
  bare,
  prototypes,
  /** Plain express on node's server: express sets the prototypes on each request. */
  express: () => createServer(plainApp().get("/seasons", answer)),
  /** Plain express on the kit's server (requests born with the app's prototypes). */
  expressBorn: () => createAppServer(plainApp().get("/seasons", answer)),
  context: () => createAppServer(layered(["context"])),
  contextLog: () => createAppServer(layered(["context", "log"])),
  contextLogHealth: () => createAppServer(layered(["context", "log", "health"])),
  contextLogHealthBody: () => createAppServer(layered(["context", "log", "health", "body"])),
  /** The kit's app on the kit's server (`app.listen`, `serve`): what every service runs. */
  kit: () => createAppServer(kitApp()),
  /** The kit's app on node's own server (as before, and as supertest runs it). */
  kitOnNodeServer: () => createServer(kitApp()),
};

const variant = process.env.KIT_VARIANT ?? "kit";
const make = VARIANTS[variant];
if (!make) throw new Error(`KIT_VARIANT must be one of ${Object.keys(VARIANTS).join(", ")}`);
const server = make();
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 18095), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
