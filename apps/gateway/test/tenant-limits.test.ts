import { TENANT_LIMIT_MAXIMA, validateTenantDetails } from "@arena/contracts";
import type { RunningServer } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { adminAuth, createHarness, type Harness, type Instance } from "./harness.js";
import { serveInstance, WsClient } from "./ws-client.js";

let h: Harness;
const running: RunningServer[] = [];
const clients: WsClient[] = [];

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  for (const client of clients) client.socket.terminate();
  for (const server of running) await server.stop().catch(() => {});
  await h?.close();
});

/** A tenant with one user; answers the user's IdToken. */
async function tenantWithUser(tenantId: string): Promise<string> {
  const clientId = await h.createTenant(tenantId);
  await h.createUser(tenantId, `${tenantId}-server`);
  return (await h.login(`${tenantId}-server`, clientId)).IdToken;
}

const setLimits = (tenantId: string, limits: object, on: Instance = h) =>
  on.http.patch(`/admin/tenants/${tenantId}`).set(adminAuth).send({ limits });

const seasons = (token: string, on: Instance = h) => on.http.get("/seasons").set("Authorization", token);

const DEFAULTS = { requests: 6000, windowSeconds: 60, webSocketConnections: 1000 };
const NONE = { requests: null, windowSeconds: null, webSocketConnections: null };

describe("GET and PATCH /admin/tenants/{tenantId}", () => {
  it("answers the limits in force: the gateway's defaults until the tenant has its own", async () => {
    await h.createTenant("plain");
    const res = await h.http.get("/admin/tenants/plain").set(adminAuth).expect(200);
    expect(validateTenantDetails(res.body)).toBe(true);
    expect(res.body).toMatchObject({
      tenantId: "plain",
      name: "Tenant plain",
      limits: DEFAULTS,
      overrides: NONE,
    });
  });

  it("sets the limits given, keeps the others, and sets one back to its default with null", async () => {
    await h.createTenant("custom");
    const set = await setLimits("custom", { requests: 100, webSocketConnections: 5 }).expect(200);
    expect(validateTenantDetails(set.body)).toBe(true);
    expect(set.body.limits).toEqual({ requests: 100, windowSeconds: 60, webSocketConnections: 5 });
    expect(set.body.overrides).toEqual({ requests: 100, windowSeconds: null, webSocketConnections: 5 });

    await setLimits("custom", { windowSeconds: 10, webSocketConnections: null }).expect(200);
    const read = await h.http.get("/admin/tenants/custom").set(adminAuth).expect(200);
    expect(read.body.limits).toEqual({ requests: 100, windowSeconds: 10, webSocketConnections: 1000 });
    expect(read.body.overrides).toEqual({ requests: 100, windowSeconds: 10, webSocketConnections: null });
  });

  it("names each bad field with a 400, and answers 404 for an unknown tenant", async () => {
    const res = await setLimits("custom", {
      requests: 0,
      windowSeconds: TENANT_LIMIT_MAXIMA.windowSeconds + 1,
      webSocketConnections: "many",
      burst: 1,
    }).expect(400);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      "/limits/burst",
      "/limits/requests",
      "/limits/webSocketConnections",
      "/limits/windowSeconds",
    ]);
    const noLimits = await h.http
      .patch("/admin/tenants/custom")
      .set(adminAuth)
      .send({ name: "x" })
      .expect(400);
    expect(noLimits.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      "/limits",
      "/name",
    ]);
    await h.http.patch("/admin/tenants/custom").set(adminAuth).type("json").send("{").expect(400);
    const badId = await h.http.get("/admin/tenants/Not%20An%20Id").set(adminAuth).expect(400);
    expect(badId.body.errors[0].pointer).toBe("/tenantId");
    await h.http.get("/admin/tenants/nobody").set(adminAuth).expect(404);
    await setLimits("nobody", { requests: 5 }).expect(404);
  });
});

describe("the limits in force", () => {
  it("hold a tenant to its own request budget over REST, and spare the other tenants", async () => {
    const tight = await tenantWithUser("tight");
    const roomy = await tenantWithUser("roomy");
    await setLimits("tight", { requests: 3, windowSeconds: 600 }).expect(200);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await seasons(tight)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const limited = await seasons(tight);
    expect(limited.body).toMatchObject({
      code: "RATE_LIMITED",
      detail: expect.stringMatching(/3 requests in 600 s/),
    });
    const spared = await seasons(roomy).expect(200);
    expect(spared.headers["ratelimit-limit"]).toBe("6000");
  });

  it("reach another replica once its cached copy is TENANT_LIMITS_CACHE_MS old, and this one at once", async () => {
    const token = await tenantWithUser("cached");
    const replica = await h.startInstance();
    expect((await seasons(token, replica).expect(200)).headers["ratelimit-limit"]).toBe("6000");
    await setLimits("cached", { requests: 2 }).expect(200);
    // This replica forgot its copy when it stored the change; the other still uses its own.
    expect((await seasons(token).expect(200)).headers["ratelimit-limit"]).toBe("2");
    expect((await seasons(token, replica).expect(200)).headers["ratelimit-limit"]).toBe("6000");
    h.clock.advance(5_000);
    const refused = await seasons(token, replica);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/more than 2 requests/);
  });

  it("hold a tenant to its own WebSocket connections per replica, and its message budget", async () => {
    const token = await tenantWithUser("sockets");
    const server = await serveInstance(h);
    running.push(server);
    const base = `http://127.0.0.1:${server.port}`;
    await setLimits("sockets", { webSocketConnections: 1, requests: 2, windowSeconds: 600 }).expect(200);
    const client = await WsClient.open(base, token);
    clients.push(client);
    const refused = await WsClient.refusal(base, token);
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.body.detail).toMatch(/Tenant sockets holds its maximum of 1 WebSocket connections/);

    expect((await client.request("getPlayers", { gameId: "g1" })).payload).toBeDefined();
    expect((await client.request("getPlayers", { gameId: "g1" })).payload).toBeDefined();
    expect((await client.request("getPlayers", { gameId: "g1" })).error.code).toBe(429);

    await setLimits("sockets", { webSocketConnections: null }).expect(200);
    clients.push(await WsClient.open(base, token));
  });
});
