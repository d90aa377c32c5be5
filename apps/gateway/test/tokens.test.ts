import { createLogger } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { INITIATE_AUTH_TARGET } from "../src/identity/cognito-routes.js";
import { gatewaySigningKeys } from "../src/identity/signing-key-store.js";
import { runAdminCli } from "../src/tenants/admin-cli.js";
import {
  adminAuth,
  createHarness,
  type Harness,
  type Instance,
  nextIp,
  PASSWORD,
  SIGNING_KEY_SECRET,
} from "./harness.js";

let h: Harness;
let clientId: string;
beforeAll(async () => {
  h = await createHarness();
  clientId = await h.createTenant("acme");
  await h.createUser("acme", "server-eu");
});
afterAll(async () => {
  await h?.close();
});

/** The two-second promise of an emergency rotation, on the clock every instance shares. */
const WITHIN_TWO_SECONDS_MS = 1_001;

const seasons = (instance: Instance, token: string) =>
  instance.http.get("/seasons").set("Authorization", token);

/** Logs in through `instance` (the harness logs in through the first one only). */
async function loginThrough(instance: Instance): Promise<string> {
  const res = await instance.http
    .post("/auth/")
    .set("X-Amz-Target", INITIATE_AUTH_TARGET)
    .set("Content-Type", "application/x-amz-json-1.1")
    .set("X-Forwarded-For", nextIp())
    .send(
      JSON.stringify({
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: "server-eu", PASSWORD: PASSWORD },
        ClientId: clientId,
      }),
    );
  expect(res.status).toBe(200);
  return JSON.parse(res.text).AuthenticationResult.IdToken as string;
}

describe("an emergency rotation (revokePrevious)", () => {
  it("refuses every earlier key's tokens at once here and within two seconds on a replica, cached ones included", async () => {
    const replica = await h.startInstance();
    const before = (await h.login("server-eu", clientId)).IdToken;
    const fromReplica = await loginThrough(replica);
    const oldKid = decodeProtectedHeader(before).kid;
    // Both replicas have verified (and remembered) the old tokens.
    for (const instance of [h, replica]) {
      await seasons(instance, before).expect(200);
      await seasons(instance, fromReplica).expect(200);
    }

    const rotated = await h.http
      .post("/admin/signing-keys/rotate")
      .set(adminAuth)
      .send({ revokePrevious: true })
      .expect(201);
    expect(rotated.body.revokedKids).toContain(oldKid);
    const jwks = (await h.http.get("/.well-known/jwks.json")).body.keys.map((k: { kid: string }) => k.kid);
    expect(jwks).toEqual([rotated.body.kid]);

    const here = await seasons(h, before);
    expect(here.status).toBe(401);
    expect(here.body.detail).toMatch(/not signed by a key of this gateway/);
    h.clock.advance(WITHIN_TWO_SECONDS_MS);
    await seasons(replica, before).expect(401);
    await seasons(replica, fromReplica).expect(401);

    // The replica signs with the new key from now on, and both accept what it signs.
    const after = await loginThrough(replica);
    expect(decodeProtectedHeader(after).kid).toBe(rotated.body.kid);
    await seasons(replica, after).expect(200);
    await seasons(h, after).expect(200);
  });

  it("from the CLI (its own process: no Redis, only the database) reaches every replica within two seconds", async () => {
    const before = (await h.login("server-eu", clientId)).IdToken;
    await seasons(h, before).expect(200);
    const printed: unknown[] = [];
    const cliKeys = gatewaySigningKeys({
      db: h.db,
      clock: h.clock,
      logger: createLogger({ name: "gateway-cli", level: "silent" }),
      secret: SIGNING_KEY_SECRET,
      rotationDays: 30,
      algorithm: "RS256",
    });
    await runAdminCli(["rotate-signing-key", "--revoke-previous"], {
      admin: h.gateway.admin,
      signingKeys: () => cliKeys,
      readPassword: async () => PASSWORD,
      print: (value) => printed.push(value),
    });
    expect(printed[0]).toMatchObject({ revokedKids: [decodeProtectedHeader(before).kid] });
    h.clock.advance(WITHIN_TWO_SECONDS_MS);
    await seasons(h, before).expect(401);
  });

  it("is asked for by the body only: without it earlier tokens stay valid, and a bad body is a 400", async () => {
    const before = (await h.login("server-eu", clientId)).IdToken;
    const rotated = await h.http.post("/admin/signing-keys/rotate").set(adminAuth).send({}).expect(201);
    expect(rotated.body).not.toHaveProperty("revokedKids");
    h.clock.advance(WITHIN_TWO_SECONDS_MS);
    await seasons(h, before).expect(200);
    const bad = await h.http
      .post("/admin/signing-keys/rotate")
      .set(adminAuth)
      .send({ revokePrevious: 1, revokeAll: true })
      .expect(400);
    expect(bad.body.errors).toEqual([
      { pointer: "/revokeAll", detail: "is not an allowed property" },
      { pointer: "/revokePrevious", detail: "must be boolean" },
    ]);
  });
});

describe("a token's lifetime", () => {
  it("is refused past the hour the gateway issues, even signed by its own key, or counted from a future iat", async () => {
    const good = (await h.login("server-eu", clientId)).IdToken;
    const claims = JSON.parse(Buffer.from(good.split(".")[1]!, "base64url").toString("utf8"));
    const key = await h.gateway.signingKeys.active();
    const now = Math.floor(h.clock.now().getTime() / 1000);
    const signed = (iat: number, exp: number) =>
      new SignJWT({ ...claims, iat, exp })
        .setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: "JWT" })
        .sign(key.privateKey);
    await seasons(h, await signed(now, now + 3600)).expect(200);
    const tenYears = await seasons(h, await signed(now, now + 10 * 365 * 86_400));
    expect(tenYears.status).toBe(401);
    expect(tenYears.body.detail).toMatch(/lifetime \(exp - iat\) exceeds 3600 seconds/);
    const ahead = await seasons(h, await signed(now + 86_400, now + 86_400 + 3600));
    expect(ahead.status).toBe(401);
    expect(ahead.body.detail).toMatch(/iat is in the future/);
  });
});

describe("a token's algorithm", () => {
  it("must be the one its key was made for: no other algorithm under the key's kid, no token without a kid", async () => {
    const good = (await h.login("server-eu", clientId)).IdToken;
    const claims = JSON.parse(Buffer.from(good.split(".")[1]!, "base64url").toString("utf8"));
    const key = await h.gateway.signingKeys.active();
    expect(key.algorithm).toBe("RS256");
    const { privateKey: ed25519 } = await generateKeyPair("EdDSA");
    const otherAlgorithm = await seasons(
      h,
      await new SignJWT(claims).setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "JWT" }).sign(ed25519),
    );
    expect(otherAlgorithm.status).toBe(401);
    expect(otherAlgorithm.body.detail).toBe("The token's key signs with RS256, not EdDSA");
    const noKid = await seasons(
      h,
      await new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "JWT" }).sign(key.privateKey),
    );
    expect(noKid.status).toBe(401);
    expect(noKid.body.detail).toBe("The token's header names no key (kid)");
  });
});
