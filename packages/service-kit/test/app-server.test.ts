import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "@jest/globals";
import express, { type Request } from "express";
import {
  AppError,
  accessLineWriter,
  createAppServer,
  createLogger,
  createServiceApp,
  type Logger,
  requireJsonBody,
} from "../src/index.js";
import { eventually } from "../src/testing.js";
import { captureLogs } from "./captured-logs.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Resolves after the current turn of the event loop, when the kit has written its access lines. */
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Answers of `/held`, sent when the test calls them. */
let held: Array<() => void> = [];

/**
 * The kit's apps as services run them: on the kit's server (`app.listen`, `serve`), where requests
 * are born with the app's prototypes and express's router, helpers and error handling still apply.
 */
function buildService() {
  const { lines, logger } = captureLogs("info");
  const seen: { prototypeIsApp?: boolean; log?: Logger } = {};
  const service = createServiceApp({
    name: "test",
    logger,
    bodyLimit: 64,
    routes(app) {
      app.get("/items/:itemId/parts/:part", (req, res) => {
        seen.prototypeIsApp = Object.getPrototypeOf(req) === app.request;
        res.json({ itemId: req.params.itemId, part: req.params.part, host: req.get("host") !== undefined });
      });
      app.post("/items", (req, res) => {
        res.status(201).json({ got: requireJsonBody(req) });
      });
      app.get("/logs", (req, res) => {
        req.log.info({ note: "from the handler" }, "handler line");
        res.json({});
      });
      app.get("/own-log", (req: Request, res) => {
        req.log = logger.child({ mine: true });
        seen.log = req.log;
        res.json({});
      });
      app.get("/not-found", () => {
        throw new AppError("NOT_FOUND", "No such thing");
      });
      app.get("/boom", async () => {
        throw new Error("secret detail");
      });
      app.get("/held", (_req, res) => {
        held.push(() => res.json({ late: true }));
      });
    },
  });
  return { ...service, lines, seen };
}

async function listen(app: express.Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s: Server = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the kit's server", () => {
  it("creates each request with the app's own prototype, so express has none to set", async () => {
    const { app, seen } = buildService();
    const base = await listen(app);
    const res = await fetch(`${base}/items/a%20b/parts/7`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ itemId: "a b", part: "7", host: true });
    expect(seen.prototypeIsApp).toBe(true);
  });

  it("answers 404 and 405 (with Allow) as problems, and HEAD on a GET route", async () => {
    const { app } = buildService();
    const base = await listen(app);
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(((await missing.json()) as { code: string }).code).toBe("ROUTE_NOT_FOUND");
    const wrong = await fetch(`${base}/items/1/parts/2`, { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
    const head = await fetch(`${base}/items/1/parts/2`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("turns thrown and rejected errors into problem+json with the request id", async () => {
    const { app } = buildService();
    const base = await listen(app);
    const notFound = await fetch(`${base}/not-found`, { headers: { "x-request-id": "req-404" } });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ code: "NOT_FOUND", requestId: "req-404" });
    const boom = await fetch(`${base}/boom`);
    expect(boom.status).toBe(500);
    const problem = (await boom.json()) as { code: string; requestId: string };
    expect(problem.code).toBe("INTERNAL");
    expect(JSON.stringify(problem)).not.toContain("secret detail");
    expect(problem.requestId).toBe(boom.headers.get("x-request-id"));
  });

  it("echoes a sane request id and makes one otherwise", async () => {
    const { app } = buildService();
    const base = await listen(app);
    const kept = await fetch(`${base}/items/1/parts/2`, { headers: { "x-request-id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const made = await fetch(`${base}/items/1/parts/2`, { headers: { "x-request-id": "no spaces allowed" } });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("writes one access line per request and binds the request id to req.log", async () => {
    const { app, lines } = buildService();
    const base = await listen(app);
    await fetch(`${base}/logs?token=secret`, { headers: { "x-request-id": "req-log" } });
    await fetch(`${base}/livez`);
    const access = lines.filter((l) => l.msg === "request completed");
    expect(access).toHaveLength(1);
    expect(access[0]).toEqual({
      level: "info",
      time: expect.any(String),
      service: "test",
      name: "test",
      requestId: "req-log",
      method: "GET",
      path: "/logs",
      status: 200,
      durationMs: expect.any(Number),
      msg: "request completed",
    });
    expect(lines.find((l) => l.msg === "handler line")).toMatchObject({
      requestId: "req-log",
      level: "info",
    });
    expect(JSON.stringify(lines)).not.toContain("secret");
  });

  it("logs and counts a request whose client hung up first as 499, and keeps answering", async () => {
    held = [];
    const { app, lines } = buildService();
    const base = await listen(app);
    const leaving = new AbortController();
    const left = fetch(`${base}/held`, { headers: { "x-request-id": "left-early" }, signal: leaving.signal });
    left.catch(() => {});
    await eventually(() => held.length === 1, { timeoutMs: 5000 });
    leaving.abort();
    await eventually(() => lines.some((l) => l.requestId === "left-early"), { timeoutMs: 5000 });
    expect(lines.find((l) => l.requestId === "left-early")).toMatchObject({
      msg: "request completed",
      path: "/held",
      status: 499,
    });
    // The handler answering afterwards changes nothing: one line, one observation.
    held[0]!();
    const reference = await fetch(`${base}/items/1/parts/2`);
    expect(reference.status).toBe(200);
    expect(lines.filter((l) => l.requestId === "left-early")).toHaveLength(1);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain(
      'http_request_duration_seconds_count{service="test",method="GET",route="/held",status="499"} 1',
    );
    expect(text).not.toMatch(/route="\/held",status="200"/);
  });

  it("writes no access line once the app's logger is above info", async () => {
    const { app, lines, logger } = buildService();
    const base = await listen(app);
    logger.level = "warn";
    await fetch(`${base}/items/1/parts/2`);
    expect(lines.filter((l) => l.msg === "request completed")).toHaveLength(0);
    logger.level = "info";
    await fetch(`${base}/items/1/parts/2`);
    expect(lines.filter((l) => l.msg === "request completed")).toHaveLength(1);
  });

  it("lets a handler set req.log", async () => {
    const { app, seen, lines } = buildService();
    const base = await listen(app);
    await fetch(`${base}/own-log`);
    expect(seen.log).toBeDefined();
    expect(lines.some((l) => l.msg === "request completed")).toBe(true);
  });

  it("measures each request by route pattern and status", async () => {
    const { app } = buildService();
    const base = await listen(app);
    await fetch(`${base}/items/1/parts/2`);
    await fetch(`${base}/items/9/parts/3`);
    await fetch(`${base}/nowhere`);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain(
      'http_request_duration_seconds_count{service="test",method="GET",route="/items/:itemId/parts/:part",status="200"} 2',
    );
    expect(text).toContain(
      'http_request_duration_seconds_count{service="test",method="GET",route="unmatched",status="404"} 1',
    );
  });

  it("parses a body sent with a length or in chunks, and still bounds it", async () => {
    const { app } = buildService();
    const base = await listen(app);
    const json = { "content-type": "application/json" };
    const sized = await fetch(`${base}/items`, { method: "POST", headers: json, body: '{"a":1}' });
    expect(sized.status).toBe(201);
    expect(await sized.json()).toEqual({ got: { a: 1 } });
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"b":'));
        controller.enqueue(new TextEncoder().encode("2}"));
        controller.close();
      },
    });
    const chunked = await fetch(`${base}/items`, {
      method: "POST",
      headers: json,
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(201);
    expect(await chunked.json()).toEqual({ got: { b: 2 } });
    const none = await fetch(`${base}/items`, { method: "POST", headers: json });
    expect(none.status).toBe(400);
    const large = await fetch(`${base}/items`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ x: "y".repeat(100) }),
    });
    expect(large.status).toBe(413);
  });

  it("serves a plain express app too (createAppServer)", async () => {
    const app = express();
    app.get("/x/:id", (req, res) => {
      res.json({ id: req.params.id, same: Object.getPrototypeOf(req) === app.request });
    });
    const server = createAppServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x/5`);
    expect(await res.json()).toEqual({ id: "5", same: true });
  });

  it("passes a listen error to the callback, as express's listen does", async () => {
    const { app } = buildService();
    const base = await listen(app);
    const port = Number(new URL(base).port);
    const { app: second } = buildService();
    const err = await new Promise<unknown>((resolve) => {
      const s = second.listen(port, "127.0.0.1", resolve);
      servers.push(s);
    });
    expect((err as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
  });
});

describe("accessLineWriter", () => {
  const fields = {
    requestId: "r-1",
    method: "GET",
    // A hostile path: quotes, a backslash, a newline, control and non-ASCII characters.
    path: '/a"b\\c\n\u0001é/\u2028',
    status: 404,
    durationMs: 0.3,
  };

  it("writes, for the kit's loggers, the line pino writes for the same fields, byte for byte", async () => {
    const composed: string[] = [];
    const viaPino: string[] = [];
    const sink = (into: string[]) =>
      new Writable({
        write(chunk, _enc, done) {
          into.push(String(chunk));
          done();
        },
      });
    const kitLogger = createLogger({ name: "svc", level: "info", destination: sink(composed) });
    const plainPino = createLogger({ name: "svc", level: "info", destination: sink(viaPino) });
    accessLineWriter(kitLogger)(fields);
    plainPino.info(fields, "request completed");
    await endOfTurn();
    const time = /"time":"[^"]+"/;
    expect(composed).toHaveLength(1);
    expect(composed[0]!.replace(time, "")).toBe(viaPino[0]!.replace(time, ""));
    expect(JSON.parse(composed[0]!)).toMatchObject({ ...fields, level: "info", msg: "request completed" });
    expect(composed[0]!.endsWith("}\n")).toBe(true);
  });

  it("writes the access lines of one turn of the event loop in one write, at its end", async () => {
    const writes: string[] = [];
    const logger = createLogger({
      name: "svc",
      level: "info",
      destination: new Writable({
        write(chunk, _enc, done) {
          writes.push(String(chunk));
          done();
        },
      }),
    });
    const write = accessLineWriter(logger);
    for (let i = 0; i < 3; i++) write({ ...fields, requestId: `r${i}` });
    logger.warn("written at once");
    expect(writes.map((w) => JSON.parse(w).msg)).toEqual(["written at once"]);
    await endOfTurn();
    expect(writes).toHaveLength(2);
    expect(
      writes[1]!
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).requestId),
    ).toEqual(["r0", "r1", "r2"]);
    // Lines that pile up past 16 KB in one turn are written then, not held.
    const long = { ...fields, path: "/".repeat(2000) };
    for (let i = 0; i < 10; i++) write(long);
    expect(writes.length).toBeGreaterThan(2);
    await endOfTurn();
    const lines = writes.slice(2).join("").split("\n").filter(Boolean);
    expect(lines).toHaveLength(10);
  });

  it("is the logger's own info for a logger the kit did not make", () => {
    const { logger, lines } = captureLogs("info");
    accessLineWriter(logger.child({ extra: 1 }))(fields);
    expect(lines).toEqual([expect.objectContaining({ ...fields, extra: 1, msg: "request completed" })]);
  });
});
