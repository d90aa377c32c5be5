import { createServer, IncomingMessage, ServerResponse } from "node:http";
import { createAppServer, createLogger, createServiceApp } from "@arena/service-kit";
import express from "express";
import { pino } from "pino";
import { CONSTANT_ANSWER } from "./constant-answer.js";

/**
 * One of the servers the service-kit layer benchmark compares (`KIT_VARIANT`), each answering
 * `GET /seasons` with the constant answer: `bare` (node's http), `express` (express 5 with one
 * route, nothing else), `kit` (createServiceApp with request ids, an info-level access log written
 * to /dev/null, metrics, the body limit and the fallbacks: everything an app pays).
 */
const variant = process.env.KIT_VARIANT ?? "kit";
const port = Number(process.env.PORT ?? 18095);

function bare() {
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

function plainExpress() {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/seasons", (_req, res) => {
    res.type("application/json").send(CONSTANT_ANSWER);
  });
  app.get("/livez", (_req, res) => {
    res.json({ status: "ok" });
  });
  return createServer(app);
}

/** Express's request/response prototypes on node's server, one handler called directly: no router. */
function prototypes() {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const handler = (_req: express.Request, res: express.Response) => {
    res.type("application/json").send(CONSTANT_ANSWER);
  };
  return createServer((req, res) => {
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    (req as express.Request).res = res as express.Response;
    (res as express.Response).req = req as express.Request;
    handler(req as express.Request, res as express.Response);
  });
}

/** As `prototypes`, but node's server builds requests and responses of classes carrying express's methods. */
function classes() {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  class Req extends IncomingMessage {}
  class Res extends ServerResponse<IncomingMessage> {}
  for (const source of [Object.getPrototypeOf(app.request), app.request]) {
    Object.defineProperties(Req.prototype, Object.getOwnPropertyDescriptors(source));
  }
  for (const source of [Object.getPrototypeOf(app.response), app.response]) {
    Object.defineProperties(Res.prototype, Object.getOwnPropertyDescriptors(source));
  }
  const handler = (_req: express.Request, res: express.Response) => {
    res.type("application/json").send(CONSTANT_ANSWER);
  };
  return createServer({ IncomingMessage: Req, ServerResponse: Res }, (req, res) => {
    (req as unknown as express.Request).res = res as unknown as express.Response;
    (res as unknown as express.Response).req = req as unknown as express.Request;
    handler(req as unknown as express.Request, res as unknown as express.Response);
  });
}

/** Plain express, on a server whose requests and responses are born with the app's prototypes. */
function expressBorn() {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/seasons", (_req, res) => {
    res.type("application/json").send(CONSTANT_ANSWER);
  });
  function Req(this: IncomingMessage, socket: import("node:net").Socket) {
    IncomingMessage.call(this, socket);
  }
  Req.prototype = app.request;
  function Res(this: ServerResponse, req: IncomingMessage, options: object) {
    (ServerResponse as unknown as Function).call(this, req, options);
  }
  Res.prototype = app.response;
  return createServer({ IncomingMessage: Req as never, ServerResponse: Res as never }, app);
}

function kitApp() {
  // Every access-log line is serialized and written (one write per line, as to stdout), not kept.
  const sink = pino.destination({ dest: "/dev/null", sync: true });
  const logger = createLogger({
    name: "kit-layers",
    level: "info",
    destination: sink as unknown as NodeJS.WritableStream,
  });
  const { app } = createServiceApp({
    name: "kit-layers",
    logger,
    routes: (routes) => {
      routes.get("/seasons", (_req, res) => {
        res.type("application/json").send(CONSTANT_ANSWER);
      });
    },
  });
  return app;
}

/** The kit's app on the kit's server (`app.listen`, `serve`): what every service runs. */
const kit = () => createAppServer(kitApp());
/** The kit's app on node's own server (as supertest runs it): express sets the prototypes per request. */
const kitOnNodeServer = () => createServer(kitApp());

const servers: Record<string, () => ReturnType<typeof createServer>> = {
  bare,
  express: plainExpress,
  expressBorn,
  prototypes,
  classes,
  kit,
  kitOnNodeServer,
};
const make = servers[variant];
if (!make) throw new Error(`KIT_VARIANT must be one of ${Object.keys(servers).join(", ")}`);
const server = make();
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
