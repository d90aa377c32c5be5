import { generateKeyPairSync, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SignJWT } from "jose";
import type supertest from "supertest";
import { adminAuth, createHarness, type Harness } from "./harness.js";
import { CONCRETE_OPERATIONS } from "./hosted-operations.js";

let h: Harness;
const forged = new Map<string, string | undefined>();

/** A token signed by the gateway's real active key, with claims of the test's choosing. */
async function signWithGatewayKey(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const key = await h.gateway.signingKeys.active();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "JWT", ...header })
    .sign(key.privateKey);
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

beforeAll(async () => {
  h = await createHarness();
  const clientId = await h.createTenant("acme");
  const otherClientId = await h.createTenant("globex");
  await h.createUser("acme", "server-eu");
  await h.createUser("acme", "soon-disabled");
  const good = await h.login("server-eu", clientId);
  const [header, payload, signature] = good.IdToken.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  const now = Math.floor(h.clock.now().getTime() / 1000);

  forged.set("no Authorization header", undefined);
  forged.set("an empty Authorization header", "");
  forged.set("garbage", "not-a-jwt-at-all");
  forged.set("a Bearer scheme with garbage", "Bearer a.b.c");
  forged.set(
    "a token whose tenant was edited (signature kept)",
    [header, b64({ ...claims, tenant: "globex" }), signature].join("."),
  );
  forged.set(
    "a token whose role was raised (signature kept)",
    [header, b64({ ...claims, role: "admin" }), signature].join("."),
  );
  forged.set("a token with its signature cut off", `${header}.${payload}.`);
  forged.set("alg none", [b64({ alg: "none", typ: "JWT" }), payload, ""].join("."));
  forged.set(
    "HS256 keyed with the published public key (algorithm confusion)",
    await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: JSON.parse(Buffer.from(header, "base64url").toString()).kid })
      .sign(
        new TextEncoder().encode(JSON.stringify((await h.http.get("/.well-known/jwks.json")).body.keys[0])),
      ),
  );
  forged.set("an expired token", await signWithGatewayKey({ ...claims, iat: now - 7200, exp: now - 3600 }));
  forged.set(
    "a token for another tenant's app client",
    await signWithGatewayKey({ ...claims, aud: otherClientId }),
  );
  forged.set(
    "a token for an unknown app client",
    await signWithGatewayKey({ ...claims, aud: "unknownclient000000000000" }),
  );
  forged.set(
    "a token from another issuer",
    await signWithGatewayKey({ ...claims, iss: "https://evil.example" }),
  );
  forged.set(
    "a token of a user that does not exist",
    await signWithGatewayKey({ ...claims, sub: "usr_missing" }),
  );
  const { privateKey } = generateKeyPairSync("ed25519");
  forged.set(
    "a token signed by an unknown key (unknown kid)",
    await new SignJWT(claims).setProtectedHeader({ alg: "EdDSA", kid: randomUUID() }).sign(privateKey),
  );
  forged.set(
    "a token signed by an unknown key under the gateway's kid",
    await new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", kid: (await h.gateway.signingKeys.active()).kid })
      .sign(privateKey),
  );
  const disabled = await h.login("soon-disabled", clientId);
  await h.http
    .patch("/admin/tenants/acme/users/soon-disabled")
    .set(adminAuth)
    .send({ disabled: true })
    .expect(200);
  forged.set("a valid token of a disabled user", disabled.IdToken);
});
afterAll(async () => {
  await h?.close();
});

const FORGED_KINDS = [
  "no Authorization header",
  "an empty Authorization header",
  "garbage",
  "a Bearer scheme with garbage",
  "a token whose tenant was edited (signature kept)",
  "a token whose role was raised (signature kept)",
  "a token with its signature cut off",
  "alg none",
  "HS256 keyed with the published public key (algorithm confusion)",
  "an expired token",
  "a token for another tenant's app client",
  "a token for an unknown app client",
  "a token from another issuer",
  "a token of a user that does not exist",
  "a token signed by an unknown key (unknown kid)",
  "a token signed by an unknown key under the gateway's kid",
  "a valid token of a disabled user",
];

describe.each(CONCRETE_OPERATIONS.map(({ op, path }) => [`${op.method} ${op.path}`, op.method, path]))(
  "%s",
  (_name, method, path) => {
    it.each(FORGED_KINDS)("answers %s with a 401 problem and never reaches stats", async (kind) => {
      const before = h.stats.received.length;
      let req = (h.http as unknown as Record<string, (p: string) => supertest.Test>)[method.toLowerCase()]!(
        path,
      );
      const authorization = forged.get(kind);
      if (authorization !== undefined) req = req.set("Authorization", authorization);
      const res = await req;
      expect(res.status).toBe(401);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(res.body.code).toBe("UNAUTHENTICATED");
      expect(h.stats.received.length).toBe(before);
    });
  },
);
