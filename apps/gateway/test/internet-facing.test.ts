import { ConfigError } from "@arena/service-kit";
import { untilReady } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import supertest from "supertest";
import { loadGatewayConfig } from "../src/config.js";
import { INITIATE_AUTH_TARGET } from "../src/identity/cognito-routes.js";
import { createHarness, type Harness, type Instance, PASSWORD } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.createTenant("acme");
});
afterAll(async () => {
  await h?.close();
});

describe("METRICS_PORT", () => {
  it("moves /metrics and the detailed /readyz to the internal app; the public port says only ready or not", async () => {
    const separated = await h.startInstance({ METRICS_PORT: "0" });
    await separated.http.get("/metrics").expect(404);
    const internal = supertest(separated.gateway.internalApp!);
    // A fresh instance: wait for its connections, then the public answer says only "ready".
    const detailed = await untilReady(() => internal.get("/readyz"));
    expect(detailed.body).toMatchObject({ status: "ready" });
    expect(Object.keys(detailed.body.checks).sort()).toEqual(["database", "redis", "stats"]);
    const ready = await separated.http.get("/readyz").expect(200);
    expect(ready.body).toEqual({ status: "ready" });
    const metrics = await internal.get("/metrics").expect(200);
    expect(metrics.text).toContain("http_request_duration_seconds");
  });

  it("keeps both on the public port when unset", async () => {
    await h.http.get("/metrics").expect(200);
    expect((await h.http.get("/readyz").expect(200)).body.checks).toBeDefined();
  });
});

describe("/metrics", () => {
  it("counts logins by outcome", async () => {
    const clientId = (await h.db.appClient.findFirstOrThrow()).id;
    await h
      .initiateAuth({
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: "nobody-at-all", PASSWORD: "wrong-password" },
        ClientId: clientId,
      })
      .expect(400);
    const metrics = await h.http.get("/metrics").expect(200);
    expect(metrics.text).toMatch(
      /gateway_logins_total\{outcome="NotAuthorizedException",service="gateway"\} [1-9]/,
    );
  });
});

describe("when Redis is down", () => {
  it("refuses hosted calls with a 503 problem instead of skipping the tenant limit", async () => {
    const clientId = (await h.db.appClient.findFirstOrThrow({ where: { tenantId: "acme" } })).id;
    await h.createUser("acme", "redis-down-user");
    const token = (await h.login("redis-down-user", clientId)).IdToken;
    const noRedis = await h.startInstance({ REDIS_URL: "redis://127.0.0.1:1" });
    const res = await noRedis.http.get("/seasons").set("Authorization", token);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("answers a login it cannot throttle with Cognito's InternalErrorException (500), never tokens", async () => {
    const clientId = (await h.db.appClient.findFirstOrThrow({ where: { tenantId: "acme" } })).id;
    const noRedis = await h.startInstance({ REDIS_URL: "redis://127.0.0.1:1" });
    const res = await noRedis.http
      .post("/auth/")
      .set("X-Amz-Target", INITIATE_AUTH_TARGET)
      .set("Content-Type", "application/x-amz-json-1.1")
      .send(
        JSON.stringify({
          AuthFlow: "USER_PASSWORD_AUTH",
          AuthParameters: { USERNAME: "redis-down-user", PASSWORD },
          ClientId: clientId,
        }),
      );
    expect(res.status).toBe(500);
    expect(res.headers["x-amzn-errortype"]).toBe("InternalErrorException:");
    expect(JSON.parse(res.text)).toEqual({
      __type: "InternalErrorException",
      message: "An internal error occurred",
    });
  });
});

describe("TRUST_PROXY", () => {
  /** A failed login from `ip` as X-Forwarded-For names it: the Cognito error type answered. */
  async function failedLogin(instance: Instance, ip: string): Promise<string> {
    const clientId = (await h.db.appClient.findFirstOrThrow()).id;
    const res = await instance.http
      .post("/auth")
      .set("X-Amz-Target", INITIATE_AUTH_TARGET)
      .set("Content-Type", "application/x-amz-json-1.1")
      .set("X-Forwarded-For", ip)
      .send(
        JSON.stringify({
          AuthFlow: "USER_PASSWORD_AUTH",
          AuthParameters: { USERNAME: `nobody-${ip}`, PASSWORD: "wrong-password" },
          ClientId: clientId,
        }),
      );
    return JSON.parse(res.text).__type;
  }

  it("is the kit's validated field: a bad entry is listed at start-up with the other problems", () => {
    let error: unknown;
    try {
      loadGatewayConfig({ ...h.env, TRUST_PROXY: "loopback, 10.0.0.0/33", WS_MAX_IN_FLIGHT: "0" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'TRUST_PROXY="loopback, 10.0.0.0/33" has "10.0.0.0/33": not an address, a CIDR, loopback, linklocal or uniquelocal',
      "WS_MAX_IN_FLIGHT=0 must be >= 1",
    ]);
    for (const good of ["none", "true", "2", "loopback, 10.0.0.0/8", "fd00::/8"]) {
      expect(loadGatewayConfig({ ...h.env, TRUST_PROXY: good }).TRUST_PROXY).toBe(good);
    }
  });

  it("ignores X-Forwarded-For by default, so a client cannot choose its throttling address", async () => {
    const direct = await h.startInstance({ TRUST_PROXY: "none", LOGIN_FAILURES_PER_ADDRESS: "2" });
    expect(await failedLogin(direct, "203.0.113.2")).toBe("NotAuthorizedException");
    expect(await failedLogin(direct, "203.0.113.3")).toBe("NotAuthorizedException");
    expect(await failedLogin(direct, "203.0.113.4")).toBe("TooManyRequestsException");
  });

  it("believes X-Forwarded-For from the proxies it names", async () => {
    const behindProxy = await h.startInstance({ TRUST_PROXY: "1", LOGIN_FAILURES_PER_ADDRESS: "1" });
    // One failure per address: two addresses named by the proxy are two budgets.
    expect(await failedLogin(behindProxy, "203.0.113.20")).toBe("NotAuthorizedException");
    expect(await failedLogin(behindProxy, "203.0.113.21")).toBe("NotAuthorizedException");
    expect(await failedLogin(behindProxy, "203.0.113.20")).toBe("TooManyRequestsException");
  });
});

describe("client input never crashes the gateway", () => {
  it("answers any InitiateAuth body with Cognito's error shape, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const res = await h.http
          .post("/auth")
          .set("X-Amz-Target", INITIATE_AUTH_TARGET)
          .set("Content-Type", "application/x-amz-json-1.1")
          .send(JSON.stringify(body));
        expect(res.status).toBe(400);
        expect(["InvalidParameterException", "ResourceNotFoundException"]).toContain(
          JSON.parse(res.text).__type,
        );
      }),
      { numRuns: 60 },
    );
  });

  it("answers any Authorization value on a hosted route with a 401 problem, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((parts) => parts.join(".")),
          fc.string().map((s) => `Bearer ${s}`),
        ),
        async (authorization) => {
          // Header values cannot hold control characters; HTTP clients refuse to send them.
          const value = authorization.replace(/[^\x20-\x7e]/g, "");
          const res = await h.http.get("/seasons").set("Authorization", value);
          expect(res.status).toBe(401);
          expect(res.body.code).toBe("UNAUTHENTICATED");
        },
      ),
      { numRuns: 100 },
    );
  });
});
