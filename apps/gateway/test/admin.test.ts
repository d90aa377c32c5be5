import { validateCreatedClient, validateTenant, validateUser, validateUserList } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type supertest from "supertest";
import { ADMIN_TOKEN, adminAuth, createHarness, type Harness, nextIp } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("every admin route", () => {
  const routes: Array<[string, string, object?]> = [
    ["post", "/admin/tenants", { tenantId: "sneaky", name: "n" }],
    ["get", "/admin/tenants"],
    ["get", "/admin/tenants/acme"],
    ["patch", "/admin/tenants/acme", { limits: { requests: 1 } }],
    ["post", "/admin/tenants/acme/clients", { name: "c" }],
    ["get", "/admin/tenants/acme/clients"],
    ["post", "/admin/tenants/acme/users", { username: "u", password: "long-enough-password", role: "admin" }],
    ["get", "/admin/tenants/acme/users"],
    ["patch", "/admin/tenants/acme/users/u", { disabled: true }],
    ["delete", "/admin/tenants/acme/users/u/refresh-tokens"],
    ["delete", "/admin/tenants/acme/users/u/login-lock"],
    ["post", "/admin/signing-keys/rotate"],
  ];
  const credentials: Array<[string, string | undefined]> = [
    ["no Authorization header", undefined],
    ["a wrong token", "Bearer wrong-token-but-long-enough"],
    ["the token as a prefix of a longer one", `Bearer ${ADMIN_TOKEN}x`],
    ["the token without the Bearer scheme", ADMIN_TOKEN],
  ];
  for (const [method, path, body] of routes) {
    for (const [what, authorization] of credentials) {
      it(`answers ${method.toUpperCase()} ${path} with ${what} with a 401 problem`, async () => {
        let req = (h.http as unknown as Record<string, (p: string) => supertest.Test>)[method]!(path);
        // An address per case: the 27 wrong tokens here would otherwise trip the per-address throttle.
        req = req.set("X-Forwarded-For", nextIp());
        if (authorization !== undefined) req = req.set("Authorization", authorization);
        const res = await (body ? req.send(body) : req);
        expect(res.status).toBe(401);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.body.code).toBe("UNAUTHENTICATED");
      });
    }
  }
});

describe("tenants, clients and users", () => {
  it("creates a tenant once (201), then answers 409", async () => {
    const res = await h.http
      .post("/admin/tenants")
      .set(adminAuth)
      .send({ tenantId: "studio-1", name: "Studio" })
      .expect(201);
    expect(validateTenant(res.body)).toBe(true);
    await h.http
      .post("/admin/tenants")
      .set(adminAuth)
      .send({ tenantId: "studio-1", name: "Again" })
      .expect(409);
    const list = await h.http.get("/admin/tenants").set(adminAuth).expect(200);
    expect(list.body.tenants.map((t: { tenantId: string }) => t.tenantId)).toContain("studio-1");
  });

  it("names each bad field of a tenant body", async () => {
    const res = await h.http
      .post("/admin/tenants")
      .set(adminAuth)
      .send({ tenantId: "Bad Id!", extra: 1 })
      .expect(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      "/extra",
      "/name",
      "/tenantId",
    ]);
  });

  it("creates app clients with Cognito-shaped ids, 404 for an unknown tenant", async () => {
    const res = await h.http
      .post("/admin/tenants/studio-1/clients")
      .set(adminAuth)
      .send({ name: "servers" })
      .expect(201);
    expect(validateCreatedClient(res.body)).toBe(true);
    expect(res.body.clientId).toMatch(/^[a-z0-9]{26}$/);
    await h.http.post("/admin/tenants/nope/clients").set(adminAuth).send({ name: "servers" }).expect(404);
  });

  it("creates users without ever answering the password, usernames unique across tenants", async () => {
    await h.http
      .post("/admin/tenants")
      .set(adminAuth)
      .send({ tenantId: "studio-2", name: "Other" })
      .expect(201);
    const res = await h.http
      .post("/admin/tenants/studio-1/users")
      .set(adminAuth)
      .send({ username: "Unique-Name", password: "long-enough-password", role: "server" })
      .expect(201);
    expect(validateUser(res.body)).toBe(true);
    expect(res.text).not.toContain("long-enough-password");
    await h.http
      .post("/admin/tenants/studio-2/users")
      .set(adminAuth)
      .send({ username: "unique-name", password: "long-enough-password", role: "admin" })
      .expect(409);
    const stored = await h.db.user.findFirstOrThrow({ where: { usernameNormalized: "unique-name" } });
    expect(stored.passwordHash).toMatch(/^scrypt\$/);
    const list = await h.http.get("/admin/tenants/studio-1/users").set(adminAuth).expect(200);
    expect(validateUserList(list.body)).toBe(true);
  });

  it("rejects a short password and an unknown role by field", async () => {
    const res = await h.http
      .post("/admin/tenants/studio-1/users")
      .set(adminAuth)
      .send({ username: "x", password: "short", role: "root" })
      .expect(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(["/password", "/role"]);
  });

  it("disables a user of its own tenant only", async () => {
    await h.http
      .patch("/admin/tenants/studio-2/users/unique-name")
      .set(adminAuth)
      .send({ disabled: true })
      .expect(404);
    const res = await h.http
      .patch("/admin/tenants/studio-1/users/unique-name")
      .set(adminAuth)
      .send({ disabled: true })
      .expect(200);
    expect(res.body.disabled).toBe(true);
  });

  it("rotates the token signing key and publishes both keys", async () => {
    const before = (await h.http.get("/.well-known/jwks.json").expect(200)).body.keys.length;
    await h.gateway.signingKeys.active();
    const rotated = await h.http.post("/admin/signing-keys/rotate").set(adminAuth).expect(201);
    const jwks = (await h.http.get("/.well-known/jwks.json").expect(200)).body.keys as Array<{
      kid: string;
      d?: string;
    }>;
    expect(jwks.map((k) => k.kid)).toContain(rotated.body.kid);
    expect(jwks.length).toBeGreaterThanOrEqual(Math.max(2, before));
    for (const key of jwks) expect(key.d).toBeUndefined();
  });
});
