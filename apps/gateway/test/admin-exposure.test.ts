import { ConfigError } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import supertest from "supertest";
import { loadGatewayConfig } from "../src/config.js";
import { ADMIN_TOKEN, adminAuth, createHarness, type Harness, type Instance, nextIp } from "./harness.js";

let h: Harness;
let clientId: string;
beforeAll(async () => {
  h = await createHarness();
  clientId = await h.createTenant("acme");
  await h.createUser("acme", "studio-admin", "admin");
});
afterAll(async () => {
  await h?.close();
});

describe("ADMIN_ON_INTERNAL_PORT", () => {
  it("moves the operator's /admin API to the internal port, where the hosted season reset stays public", async () => {
    const moved = await h.startInstance({ METRICS_PORT: "0", ADMIN_ON_INTERNAL_PORT: "true" });
    const internal = supertest(moved.gateway.internalApp!);
    for (const res of [
      await moved.http.post("/admin/tenants").set(adminAuth).send({ tenantId: "public", name: "P" }),
      await moved.http.get("/admin/tenants").set(adminAuth),
      await moved.http.post("/admin/signing-keys/rotate").set(adminAuth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    }
    await internal
      .post("/admin/tenants")
      .set(adminAuth)
      .send({ tenantId: "internal", name: "I" })
      .expect(201);
    const list = await internal.get("/admin/tenants").set(adminAuth).expect(200);
    expect(list.body.tenants.map((t: { tenantId: string }) => t.tenantId)).toContain("internal");
    const bad = await internal.post("/admin/tenants").set(adminAuth).send({ tenantId: "Bad Id" }).expect(400);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(
      expect.arrayContaining(["/tenantId", "/name"]),
    );
    await internal.get("/admin/tenants").set("Authorization", "Bearer wrong-token-but-long").expect(401);
    await internal.get("/metrics").expect(200);

    // A user-token operation of the hosted API: still on the public port.
    const token = (await h.login("studio-admin", clientId)).IdToken;
    const reset = await moved.http.post("/admin/season/reset").set("Authorization", token).send({});
    expect(reset.status).toBe(200);
    expect(h.stats.received.at(-1)?.url).toBe("/admin/season/reset");
  });

  it("is refused at start-up without METRICS_PORT, and off by default", async () => {
    expect(() => loadGatewayConfig({ ...h.env, ADMIN_ON_INTERNAL_PORT: "true" })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ ...h.env, ADMIN_ON_INTERNAL_PORT: "true" })).toThrow(
      /ADMIN_ON_INTERNAL_PORT=true needs METRICS_PORT/,
    );
    expect(loadGatewayConfig(h.env).ADMIN_ON_INTERNAL_PORT).toBe(false);
    const metricsOnly = await h.startInstance({ METRICS_PORT: "0" });
    await metricsOnly.http.get("/admin/tenants").set(adminAuth).expect(200);
    await supertest(metricsOnly.gateway.internalApp!).get("/admin/tenants").set(adminAuth).expect(404);
  });
});

describe("wrong admin tokens", () => {
  const wrong = { Authorization: "Bearer not-the-admin-token-at-all" };
  const tenants = (instance: Instance, ip: string, auth: Record<string, string>) =>
    instance.http.get("/admin/tenants").set("X-Forwarded-For", ip).set(auth);

  it("are throttled per address over every replica: 10 a minute, then 429 with Retry-After even for the right token", async () => {
    const replica = await h.startInstance();
    const guesser = nextIp();
    for (let i = 0; i < 10; i++) await tenants(i % 2 ? replica : h, guesser, wrong).expect(401);
    for (const instance of [h, replica]) {
      for (const auth of [wrong, adminAuth]) {
        const res = await tenants(instance, guesser, auth);
        expect(res.status).toBe(429);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.body.code).toBe("RATE_LIMITED");
        const retryAfter = Number(res.headers["retry-after"]);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
    }
    // Another address is not held back by the guesser.
    await tenants(h, nextIp(), adminAuth).expect(200);
  });

  it("count only when a token is sent, and the limit and window are settings", async () => {
    const strict = await h.startInstance({
      ADMIN_TOKEN_FAILURES_PER_ADDRESS: "2",
      ADMIN_TOKEN_FAILURE_WINDOW_SECONDS: "5",
    });
    const address = nextIp();
    for (let i = 0; i < 5; i++) await tenants(strict, address, {}).expect(401);
    await tenants(strict, address, { Authorization: ADMIN_TOKEN }).expect(401);
    await tenants(strict, address, wrong).expect(401);
    const limited = await tenants(strict, address, adminAuth).expect(429);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(5);
  });

  it("cannot be counted without Redis: a 503 problem, never an unthrottled comparison", async () => {
    const noRedis = await h.startInstance({ REDIS_URL: "redis://127.0.0.1:1" });
    const res = await tenants(noRedis, nextIp(), adminAuth);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
    expect(res.headers["retry-after"]).toBe("1");
  });
});
