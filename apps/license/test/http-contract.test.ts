import { createTestDatabase } from "@arena/database/testing";
import { createLogger } from "@arena/service-kit";
import { untilReady } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createApp } from "../src/app.js";
import { loadLicenseConfig } from "../src/config.js";
import { createDatabaseClient } from "../src/db.js";
import { migrationsDir, schemaPath } from "../src/schema-version.js";
import { bearer, createHarness, type Harness, nextIp } from "./harness.js";

let h: Harness;
let licenseId: string;
beforeAll(async () => {
  h = await createHarness();
  const created = await h.http
    .post("/admin/licenses")
    .set("Authorization", bearer())
    .send({ name: "n", email: "n@example.com", edition: "community" });
  licenseId = created.body.id;
});
afterAll(async () => {
  await h?.close();
});

type Method = "post" | "patch";
const endpoints: Array<{ method: Method; path: () => string; admin: boolean; good: object }> = [
  {
    method: "post",
    path: () => "/v1/registrations",
    admin: false,
    good: { name: "A", email: "a@example.com" },
  },
  { method: "post", path: () => "/v1/licenses/validate", admin: false, good: { licenseKey: "lk_x" } },
  {
    method: "post",
    path: () => "/admin/licenses",
    admin: true,
    good: { name: "A", email: "a@example.com", edition: "community" },
  },
  { method: "patch", path: () => `/admin/licenses/${licenseId}`, admin: true, good: { edition: "advanced" } },
];

function send(endpoint: (typeof endpoints)[number]) {
  let req = h.http[endpoint.method](endpoint.path()).set("X-Forwarded-For", nextIp());
  if (endpoint.admin) req = req.set("Authorization", bearer());
  return req;
}

describe("bad request bodies", () => {
  for (const endpoint of endpoints) {
    const name = `${endpoint.method.toUpperCase()} ${endpoint.path().replace(/lic_\w+|undefined/, "{id}")}`;
    const fields = Object.keys(endpoint.good);

    for (const field of fields) {
      it(`${name} answers a missing ${field} with a 400 problem naming /${field}`, async () => {
        const body: Record<string, unknown> = { ...endpoint.good };
        delete body[field];
        const res = await send(endpoint).send(body).expect(400);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.body.code).toBe("VALIDATION_FAILED");
        expect(res.body.errors).toContainEqual({ pointer: `/${field}`, detail: "is required" });
      });

      it(`${name} answers a wrongly typed ${field} with a 400 problem naming /${field}`, async () => {
        const res = await send(endpoint)
          .send({ ...endpoint.good, [field]: 42 })
          .expect(400);
        expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(`/${field}`);
      });
    }

    it(`${name} answers an unknown property with a 400 problem naming it`, async () => {
      const res = await send(endpoint)
        .send({ ...endpoint.good, surprise: true })
        .expect(400);
      expect(res.body.errors).toContainEqual({ pointer: "/surprise", detail: "is not an allowed property" });
    });

    it(`${name} answers malformed JSON with a 400 problem`, async () => {
      const res = await send(endpoint).set("Content-Type", "application/json").send('{"name": ').expect(400);
      expect(res.body.code).toBe("MALFORMED_JSON");
    });

    it(`${name} answers a missing body with a 400 problem`, async () => {
      const res = await send(endpoint).expect(400);
      expect(res.body.code).toBe("VALIDATION_FAILED");
    });
  }

  it("answers an invalid e-mail address with a 400 problem naming /email", async () => {
    const res = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "A", email: "not-an-address" })
      .expect(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(["/email"]);
  });

  it("answers an unknown edition with a 400 problem listing the editions", async () => {
    const res = await h.http
      .patch(`/admin/licenses/${licenseId}`)
      .set("Authorization", bearer())
      .send({ edition: "enterprise" })
      .expect(400);
    expect(res.body.errors).toEqual([
      { pointer: "/edition", detail: 'must be one of "community", "advanced"' },
    ]);
  });

  it("answers a body over the limit with 413", async () => {
    const res = await h.http
      .post("/v1/registrations")
      .send({ name: "x".repeat(20_000), email: "a@example.com" })
      .expect(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("routes", () => {
  it("answers an unknown route with a 404 problem", async () => {
    const res = await h.http.get("/v1/nothing-here").expect(404);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe("ROUTE_NOT_FOUND");
  });

  it("answers a wrong method with a 405 problem and Allow", async () => {
    const res = await h.http.get("/v1/licenses/validate").expect(405);
    expect(res.body.code).toBe("METHOD_NOT_ALLOWED");
    expect(res.headers.allow).toBe("POST");
    const jwks = await h.http.post("/.well-known/jwks.json").expect(405);
    expect(jwks.headers.allow).toContain("GET");
  });

  it("echoes the caller's request id in the answer and the problem", async () => {
    const res = await h.http.get("/v1/nothing-here").set("x-request-id", "trace-123").expect(404);
    expect(res.headers["x-request-id"]).toBe("trace-123");
    expect(res.body.requestId).toBe("trace-123");
  });

  it("answers /livez, /readyz and /metrics", async () => {
    await h.http.get("/livez").expect(200, { status: "ok" });
    const ready = await h.http.get("/readyz").expect(200);
    expect(ready.body.checks).toEqual({ database: "ok" });
    const metrics = await h.http.get("/metrics").expect(200);
    expect(metrics.text).toContain("http_request_duration_seconds");
    expect(metrics.text).toContain("license_mails_total");
  });
});

describe("readiness", () => {
  it("answers /readyz with 503 when the database is gone", async () => {
    const doomed = await createTestDatabase({ schemaPath, migrationsDir, prefix: "license_test_gone" });
    const config = loadLicenseConfig({ ...h.env, DATABASE_URL: doomed.url });
    const db = createDatabaseClient(doomed.url);
    const app = createApp({
      db,
      mailer: { send: async () => {}, close: () => {} },
      clock: h.clock,
      config,
      logger: createLogger({ name: "license", level: "silent" }),
    });
    const supertest = (await import("supertest")).default;
    try {
      expect((await untilReady(() => supertest(app.app).get("/readyz"))).status).toBe(200);
      await doomed.drop();
      const res = await supertest(app.app).get("/readyz").expect(503);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
      expect(res.body.checks.database).toMatch(/^failing/);
    } finally {
      await app.close();
      await db.$disconnect().catch(() => {});
      await doomed.drop();
    }
  });

  it("answers /readyz with 503 while shutting down", async () => {
    const instance = await h.startInstance();
    instance.license.lifecycle.beginShutdown();
    await instance.http.get("/readyz").expect(503);
  });
});
