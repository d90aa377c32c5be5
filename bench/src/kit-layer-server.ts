import { createServer } from "node:http";
import { createLogger, createServiceApp } from "@arena/service-kit";
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

function kit() {
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
  return createServer(app);
}

const servers: Record<string, () => ReturnType<typeof createServer>> = { bare, express: plainExpress, kit };
const make = servers[variant];
if (!make) throw new Error(`KIT_VARIANT must be one of ${Object.keys(servers).join(", ")}`);
const server = make();
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
