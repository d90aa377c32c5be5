import { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Duplex } from "node:stream";
import { appClasses } from "@arena/service-kit";
import type { Express, Request, Response } from "express";
import { answer, kitApp, layered } from "./kit-layer-apps.js";

/**
 * The service kit's layers one at a time, in one process, without the network
 * (`node dist/kit-layers-in-process.js`): each request is built as node's server builds it, handed
 * to the app and answered into a socket that discards the bytes, and the process' CPU time is
 * divided by the requests. No HTTP parsing, no system calls but the access lines' writes (to
 * /dev/null), no client on the same cores: the steadiest figure for what each layer adds; the
 * network benchmark (kit-layers.ts) gives the whole request beside a bare node server.
 */
const REQUESTS = 30_000;
const ROUNDS = 5;

/** Express's prototypes without its router: what a kit-owned route table could at best reach. */
function directHandler(): Express {
  const app = layered([]);
  const handle = (req: Request, res: Response) => {
    req.res = res;
    res.req = req;
    answer(req, res);
  };
  return Object.assign(handle, { request: app.request, response: app.response }) as unknown as Express;
}

/** [name, app, whether requests are born with the app's prototypes (the kit's server)] */
const VARIANTS: Array<[string, () => Express, boolean]> = [
  ["express, prototypes set per request (node's server)", () => layered([]), false],
  ["express, requests born with its prototypes (kit's server)", () => layered([]), true],
  ["no router: the handler called directly on the same born objects", directHandler, true],
  ["+ request context (id, metric, lazy req.log, hooks)", () => layered(["context"]), true],
  ["+ access line at info", () => layered(["context", "log"]), true],
  ["+ health routes passed", () => layered(["context", "log", "health"]), true],
  ["+ body parser guard", () => layered(["context", "log", "health", "body"]), true],
  ["createServiceApp (all of the above, fallbacks)", kitApp, true],
];

const socket = new Duplex({
  read() {},
  write(_chunk, _encoding, done) {
    done();
  },
  writev(_chunks, done) {
    done();
  },
}) as unknown as Socket;

type RequestMaker = new (socket: Socket) => IncomingMessage;
type ResponseMaker = new (req: IncomingMessage) => ServerResponse;

/** Constructors as the kit's server has them (appClasses: the app's prototypes), or node's own. */
function makers(app: Express, born: boolean): [RequestMaker, ResponseMaker] {
  if (!born) return [IncomingMessage, ServerResponse];
  const { AppRequest, AppResponse } = appClasses(app);
  return [AppRequest, AppResponse];
}

async function serve(app: Express, born: boolean, requests: number): Promise<void> {
  const [AppRequest, AppResponse] = makers(app, born);
  for (let i = 0; i < requests; i++) {
    const req = new AppRequest(socket);
    const res = new AppResponse(req);
    Object.assign(req, { method: "GET", url: "/seasons", complete: true });
    req.headers = { host: "127.0.0.1", accept: "*/*" };
    req.push(null);
    res.shouldKeepAlive = true;
    res.assignSocket(socket);
    await new Promise((resolve) => {
      res.on("finish", resolve);
      app(req, res);
    });
    res.detachSocket(socket);
  }
}

const results = VARIANTS.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [index, [, make, born]] of VARIANTS.entries()) {
    const app = make();
    await serve(app, born, REQUESTS / 10);
    const before = process.cpuUsage();
    await serve(app, born, REQUESTS);
    const used = process.cpuUsage(before);
    results[index]?.push((used.user + used.system) / REQUESTS);
  }
}
console.log("| layers | CPU µs/request (median of 5) |\n|---|---|");
for (const [index, [name]] of VARIANTS.entries()) {
  const sorted = [...(results[index] ?? [])].sort((a, b) => a - b);
  console.log(`| ${name} | ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} |`);
}
