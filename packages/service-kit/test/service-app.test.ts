import { compile } from "@arena/contracts";
import { describe, expect, it } from "@jest/globals";
import express from "express";
import request from "supertest";
import {
  AppError,
  createServiceApp,
  type ReadinessCheck,
  requireJsonBody,
  validateOrThrow,
} from "../src/index.js";
import { byteKeepingParser, keptBytes } from "./byte-keeping-parser.js";
import { captureLogs } from "./captured-logs.js";

const validateGreeting = compile<{ name: string; count?: number }>({
  type: "object",
  required: ["name"],
  properties: { name: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1 } },
  additionalProperties: false,
});

function buildApp(readiness: ReadinessCheck[] = []) {
  const { lines, logger } = captureLogs();
  const service = createServiceApp({
    name: "test",
    logger,
    bodyLimit: 1024,
    readiness,
    routes(app) {
      app.post("/greetings", (req, res) => {
        const body = validateOrThrow(validateGreeting, requireJsonBody(req));
        req.log.info({ body: { password: "hunter2" } }, "greeting");
        res.status(201).json({ hello: body.name });
      });
      app.get("/greetings/:id", (req, res) => {
        if (req.params.id !== "1") throw new AppError("NOT_FOUND", `No greeting ${req.params.id}`);
        res.json({ id: "1" });
      });
      const nested = express.Router();
      nested.get("/items", (_req, res) => {
        res.json([]);
      });
      app.use("/admin", nested);
      app.get("/boom", () => {
        throw new Error("database password is hunter2");
      });
    },
  });
  return { ...service, lines };
}

const PROBLEM = /application\/problem\+json/;

describe("createServiceApp", () => {
  it("answers a valid body through the app's route", async () => {
    const { app } = buildApp();
    const res = await request(app).post("/greetings").send({ name: "Ada" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ hello: "Ada" });
  });

  it("names every bad field with its JSON pointer in a 400 problem", async () => {
    const { app } = buildApp();
    const res = await request(app).post("/greetings").send({ count: 0, extra: true });
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ status: 400, code: "VALIDATION_FAILED", title: expect.any(String) });
    expect(res.body.type).toMatch(/^https:\/\//);
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
    expect(pointers).toEqual(["/count", "/extra", "/name"]);
    expect(res.body.requestId).toBe(res.headers["x-request-id"]);
  });

  it("answers malformed JSON with a 400 problem, not a crash", async () => {
    const { app } = buildApp();
    const res = await request(app)
      .post("/greetings")
      .set("content-type", "application/json")
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("MALFORMED_JSON");
  });

  it("answers a missing body with a 400 problem and a non-JSON body with 415", async () => {
    const { app } = buildApp();
    const empty = await request(app).post("/greetings");
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].pointer).toBe("");
    const text = await request(app).post("/greetings").set("content-type", "text/plain").send("name=Ada");
    expect(text.status).toBe(415);
    expect(text.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers a body over the limit with 413", async () => {
    const { app } = buildApp();
    const res = await request(app)
      .post("/greetings")
      .send({ name: "x".repeat(2000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", limit: 1024 });
  });

  it("answers unknown routes with 404 and wrong methods with 405 and Allow", async () => {
    const { app } = buildApp();
    const missing = await request(app).get("/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("ROUTE_NOT_FOUND");
    const wrong = await request(app).delete("/greetings/1");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("GET, HEAD");
    expect(wrong.body.code).toBe("METHOD_NOT_ALLOWED");
  });

  it("turns an AppError into its status and an unknown error into an opaque 500", async () => {
    const { app, lines } = buildApp();
    const notFound = await request(app).get("/greetings/2");
    expect(notFound.status).toBe(404);
    expect(notFound.body.detail).toBe("No greeting 2");
    const boom = await request(app).get("/boom");
    expect(boom.status).toBe(500);
    expect(boom.body.code).toBe("INTERNAL");
    expect(JSON.stringify(boom.body)).not.toContain("hunter2");
    expect(lines.some((l) => l.level === "error")).toBe(true);
  });

  it("logs the full path of a route inside a mounted router", async () => {
    const { app, lines } = buildApp();
    await request(app).get("/admin/items?token=abc");
    expect(lines.find((l) => l.msg === "request completed")).toMatchObject({
      path: "/admin/items",
      status: 200,
    });
  });

  it("echoes a sane x-request-id and replaces an unsafe one", async () => {
    const { app } = buildApp();
    const kept = await request(app).get("/livez").set("x-request-id", "abc-123");
    expect(kept.headers["x-request-id"]).toBe("abc-123");
    const replaced = await request(app).get("/livez").set("x-request-id", "bad id\twith spaces");
    expect(replaced.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("logs JSON lines with the request id and never the secrets", async () => {
    const { app, lines } = buildApp();
    await request(app)
      .post("/greetings?authorization=secret-token")
      .set("authorization", "Bearer secret-token")
      .set("x-request-id", "req-1")
      .send({ name: "Ada" });
    // Access lines are written at the end of the turn that finished their request.
    await new Promise((resolve) => setImmediate(resolve));
    const text = JSON.stringify(lines);
    expect(text).not.toContain("secret-token");
    expect(text).not.toContain("hunter2");
    const done = lines.find((l) => l.msg === "request completed");
    expect(done).toMatchObject({ requestId: "req-1", status: 201, path: "/greetings", service: "test" });
  });
});

describe("health and metrics", () => {
  it("reports live and ready when every check passes", async () => {
    const { app } = buildApp([{ name: "db", check: async () => {} }]);
    expect((await request(app).get("/livez")).status).toBe(200);
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready", checks: { db: "ok" } });
  });

  it("answers /readyz with 503 naming the failing dependency, logged as a warning without a stack", async () => {
    const { app, lines } = buildApp([
      { name: "db", check: async () => {} },
      {
        name: "redis",
        check: async () => {
          throw new Error("connection refused");
        },
      },
    ]);
    const res = await request(app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.headers["content-type"]).toMatch(PROBLEM);
    expect(res.body.detail).toContain("redis failing: connection refused");
    expect(res.body.checks).toEqual({ db: "ok", redis: "failing: connection refused" });
    const logged = lines.find((l) => l.code === "SERVICE_UNAVAILABLE");
    expect(logged?.level).toBe("warn");
    expect(lines.some((l) => l.level === "error")).toBe(false);
  });

  it("answers /readyz with 503 once shutdown has begun", async () => {
    const { app, lifecycle } = buildApp();
    lifecycle.beginShutdown();
    const res = await request(app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.detail).toBe("Shutting down");
  });

  it("serves Prometheus metrics including request durations by route", async () => {
    const { app } = buildApp();
    await request(app).get("/greetings/1");
    const res = await request(app).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/plain/);
    expect(res.text).toContain(
      'http_request_duration_seconds_count{service="test",method="GET",route="/greetings/:id",status="200"} 1',
    );
    expect(res.text).toContain("process_cpu_seconds_total");
  });
});

describe("an app's own body parser", () => {
  function rawApp() {
    const { logger } = captureLogs();
    return createServiceApp({
      name: "raw",
      logger,
      bodyLimit: 1024,
      bodyParser: byteKeepingParser,
      routes(app) {
        app.post("/echo", (req, res) => {
          const body = requireJsonBody(req);
          res.json({ body, raw: keptBytes.get(req)?.toString("utf8") });
        });
      },
    }).app;
  }

  it("parses the JSON and keeps the bytes exactly as sent", async () => {
    const text = '{ "name" : "Zoë",  "n": 1.50 }';
    const res = await request(rawApp()).post("/echo").set("content-type", "application/json").send(text);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ body: { name: "Zoë", n: 1.5 }, raw: text });
  });

  it("answers malformed JSON with 400, another charset with 415 and a large body with 413", async () => {
    const bad = await request(rawApp()).post("/echo").set("content-type", "application/json").send("{");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("MALFORMED_JSON");
    const latin1 = await request(rawApp())
      .post("/echo")
      .set("content-type", "application/json; charset=iso-8859-1")
      .send("{}");
    expect(latin1.status).toBe(415);
    const big = await request(rawApp())
      .post("/echo")
      .send({ name: "x".repeat(2000) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("treats a request without a JSON body as having none", async () => {
    const none = await request(rawApp()).post("/echo");
    expect(none.status).toBe(400);
    expect(none.body.errors[0].pointer).toBe("");
    const text = await request(rawApp()).post("/echo").set("content-type", "text/plain").send("hi");
    expect(text.status).toBe(415);
  });
});
