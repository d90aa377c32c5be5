import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { decodeProtectedHeader } from "jose";
import { adminAuth, createHarness, type Harness } from "./harness.js";

let h: Harness;
let clientId: string;
beforeAll(async () => {
  h = await createHarness();
  clientId = await h.createTenant("acme");
  await h.createTenant("quiet");
  await h.createUser("acme", "server-eu");
  await h.createUser("quiet", "quiet-server");
});
afterAll(async () => {
  await h?.close();
});

describe("tenant rate limits", () => {
  it("hold across two gateways sharing Redis, answer 429 with Retry-After, and spare other tenants", async () => {
    const env = { TENANT_RATE_LIMIT: "4", TENANT_RATE_WINDOW_SECONDS: "60" };
    const [a, b] = [await h.startInstance(env), await h.startInstance(env)];
    const token = (await h.login("server-eu", clientId)).IdToken;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await (i % 2 ? b : a).http.get("/seasons").set("Authorization", token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await b.http.get("/seasons").set("Authorization", token);
    expect(limited.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(limited.body.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    const quietClient = (await h.db.appClient.findFirstOrThrow({ where: { tenantId: "quiet" } })).id;
    const quiet = (await h.login("quiet-server", quietClient)).IdToken;
    await a.http.get("/seasons").set("Authorization", quiet).expect(200);
  });
});

describe("signing key rotation", () => {
  it("keeps tokens signed before a rotation valid until they expire, then refuses them", async () => {
    const before = (await h.login("server-eu", clientId)).IdToken;
    const oldKid = decodeProtectedHeader(before).kid;
    await h.http.post("/admin/signing-keys/rotate").set(adminAuth).expect(201);
    const after = (await h.login("server-eu", clientId)).IdToken;
    expect(decodeProtectedHeader(after).kid).not.toBe(oldKid);

    // A replica that has not seen the new key yet reads it when a token names it.
    const replica = await h.startInstance();
    await replica.http.get("/seasons").set("Authorization", after).expect(200);
    await replica.http.get("/seasons").set("Authorization", before).expect(200);

    h.clock.advance(59 * 60_000);
    await h.http.get("/seasons").set("Authorization", before).expect(200);
    const kids = (await h.http.get("/.well-known/jwks.json")).body.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, decodeProtectedHeader(after).kid]));

    h.clock.advance(60_001);
    const expired = await h.http.get("/seasons").set("Authorization", before);
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/expired/);
    // Published until every token it signed has expired (plus the key cache's minute), then gone.
    h.clock.advance(2 * 60_000);
    const later = (await h.http.get("/.well-known/jwks.json")).body.keys.map((k: { kid: string }) => k.kid);
    expect(later).not.toContain(oldKid);
  });
});

describe("a disabled user on another replica", () => {
  it("is refused there once USER_STATUS_CACHE_MS has passed", async () => {
    await h.createUser("acme", "replicated");
    const token = (await h.login("replicated", clientId)).IdToken;
    const replica = await h.startInstance({ USER_STATUS_CACHE_MS: "2000" });
    await replica.http.get("/seasons").set("Authorization", token).expect(200);
    await h.http
      .patch("/admin/tenants/acme/users/replicated")
      .set(adminAuth)
      .send({ disabled: true })
      .expect(200);
    h.clock.advance(2_001);
    await replica.http.get("/seasons").set("Authorization", token).expect(401);
  });
});
