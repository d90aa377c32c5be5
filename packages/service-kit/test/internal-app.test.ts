import { describe, expect, it } from "@jest/globals";
import request from "supertest";
import {
  createInternalApp,
  createLogger,
  createServiceApp,
  PUBLIC_HEALTH_BESIDE_INTERNAL_APP,
  type ReadinessCheck,
  requireJsonBody,
} from "../src/index.js";

/** A public app and its internal app, as a service with a metrics port builds them. */
function buildPair(readiness: ReadinessCheck[]) {
  const logger = createLogger({ name: "test", level: "silent" });
  const service = createServiceApp({
    name: "test",
    logger,
    readiness,
    publicHealth: PUBLIC_HEALTH_BESIDE_INTERNAL_APP,
    routes: (app) => {
      app.get("/hello", (_req, res) => {
        res.json({ hello: "world" });
      });
    },
  });
  const internal = createInternalApp({
    readiness,
    lifecycle: service.lifecycle,
    metrics: service.metrics,
    logger,
  });
  return { service, internal };
}

describe("createInternalApp", () => {
  it("serves /metrics and the detailed /readyz, which the public app then leaves out", async () => {
    const { service, internal } = buildPair([{ name: "db", check: () => {} }]);
    await request(service.app).get("/hello").expect(200);
    await request(service.app).get("/metrics").expect(404);
    expect((await request(service.app).get("/readyz").expect(200)).body).toEqual({ status: "ready" });
    expect((await request(internal).get("/readyz").expect(200)).body).toEqual({
      status: "ready",
      checks: { db: "ok" },
    });
    await request(internal).get("/livez").expect(200);
    // The public app's own request metrics, on the internal port.
    const metrics = await request(internal).get("/metrics").expect(200);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/hello"[^}]*\} 1/);
  });

  it("names a failing check there only, and says not ready on both while shutting down", async () => {
    const { service, internal } = buildPair([
      {
        name: "cache",
        check: () => {
          throw new Error("connection refused");
        },
      },
    ]);
    const detailed = await request(internal).get("/readyz").expect(503);
    expect(detailed.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(detailed.body.detail).toBe("Not ready: cache failing: connection refused");
    const brief = await request(service.app).get("/readyz").expect(503);
    expect(brief.body.detail).toBe("Not ready");
    service.lifecycle.beginShutdown();
    expect((await request(internal).get("/readyz").expect(503)).body.detail).toBe("Shutting down");
  });

  it("answers other paths and methods with problems", async () => {
    const { internal } = buildPair([]);
    const missing = await request(internal).get("/hello").expect(404);
    expect(missing.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const wrongMethod = await request(internal).post("/metrics").expect(405);
    expect(wrongMethod.headers.allow).toContain("GET");
  });

  it("serves operator routes given to it, with JSON bodies read and errors as problems", async () => {
    const logger = createLogger({ name: "test", level: "silent" });
    const service = createServiceApp({ name: "test", logger, routes: () => {} });
    const internal = createInternalApp({
      readiness: [],
      lifecycle: service.lifecycle,
      metrics: service.metrics,
      logger,
      bodyLimit: 64,
      routes: (app) => {
        app.post("/admin/echo", (req, res) => {
          res.status(201).json({ echoed: requireJsonBody(req) });
        });
      },
    });
    const echoed = await request(internal).post("/admin/echo").send({ a: 1 }).expect(201);
    expect(echoed.body).toEqual({ echoed: { a: 1 } });
    expect(echoed.headers["x-request-id"]).toBeDefined();
    const tooLarge = await request(internal)
      .post("/admin/echo")
      .send({ a: "x".repeat(100) })
      .expect(413);
    expect(tooLarge.headers["content-type"]).toMatch(/^application\/problem\+json/);
    await request(service.app).post("/admin/echo").send({ a: 1 }).expect(404);
    await request(internal).get("/metrics").expect(200);
  });
});
