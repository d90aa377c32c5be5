import { createServer, type Server } from "node:http";
import { createAppServer } from "@arena/service-kit";
import type { Request, Response } from "express";
import { CONSTANT_ANSWER } from "./constant-answer.js";
import { answer, kitApp, layered, plainApp } from "./kit-layer-apps.js";

/**
 * One of the servers the service-kit layer benchmark compares (`KIT_VARIANT`, see VARIANTS), each
 * answering `GET /seasons` with the constant answer. Access lines go to /dev/null, one write per
 * line as to stdout, so their whole cost is measured.
 */
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
