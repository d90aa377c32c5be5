import { ConfigError } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { decodeProtectedHeader } from "jose";
import { loadGatewayConfig } from "../src/config.js";
import { INITIATE_AUTH_TARGET } from "../src/identity/cognito-routes.js";
import {
  adminAuth,
  createHarness,
  type Harness,
  type Instance,
  nextIp,
  PASSWORD,
  type Tokens,
} from "./harness.js";
import {
  awsCognitoIdTokenVerifier,
  awsJwtRsaVerifier,
  joseRemoteJwks,
  jsonwebtokenWithJwksRsa,
  pythonPyJwt,
  type VerifierTarget,
  type Verify,
} from "./jwt-verifiers.js";

/** A gateway whose PUBLIC_URL is shaped as a Cognito user pool's issuer, for CognitoJwtVerifier. */
const COGNITO_ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_arenaTest";

/** Logs `server-eu` in through `instance` (each instance issues tokens with its own PUBLIC_URL). */
async function loginThrough(instance: Instance, clientId: string): Promise<Tokens> {
  const res = await instance.http
    .post("/auth/")
    .set("X-Amz-Target", INITIATE_AUTH_TARGET)
    .set("Content-Type", "application/x-amz-json-1.1")
    .set("X-Forwarded-For", nextIp())
    .send(
      JSON.stringify({
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: "server-eu", PASSWORD },
        ClientId: clientId,
      }),
    );
  expect(res.status).toBe(200);
  return JSON.parse(res.text).AuthenticationResult as Tokens;
}

const emergencyRotation = async (h: Harness) =>
  (await h.http.post("/admin/signing-keys/rotate").set(adminAuth).send({ revokePrevious: true }).expect(201))
    .body as { kid: string; revokedKids: string[] };

describe("the gateway's RS256 tokens (the default) in the verifiers studios run", () => {
  let h: Harness;
  let clientId: string;
  let gateway: { instance: Instance; target: VerifierTarget };
  let cognitoShaped: { instance: Instance; target: VerifierTarget };
  beforeAll(async () => {
    h = await createHarness();
    clientId = await h.createTenant("acme");
    await h.createUser("acme", "server-eu");
    const target = async (instance: Instance, issuer: string) => ({
      instance,
      target: { jwksUri: `${await instance.listen()}/.well-known/jwks.json`, issuer, audience: clientId },
    });
    gateway = await target(h, h.env.PUBLIC_URL!);
    cognitoShaped = await target(await h.startInstance({ PUBLIC_URL: COGNITO_ISSUER }), COGNITO_ISSUER);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("publishes RSA 2048 keys with alg RS256, use sig and a kid, and signs both tokens with them", async () => {
    const tokens = await h.login("server-eu", clientId);
    const { keys } = (await h.http.get("/.well-known/jwks.json").expect(200)).body;
    expect(keys).toEqual([
      { kty: "RSA", n: expect.any(String), e: "AQAB", alg: "RS256", use: "sig", kid: expect.any(String) },
    ]);
    expect(Buffer.from(keys[0].n, "base64url")).toHaveLength(256);
    for (const token of [tokens.IdToken, tokens.AccessToken])
      expect(decodeProtectedHeader(token)).toEqual({ alg: "RS256", kid: keys[0].kid, typ: "JWT" });
  });

  const verifiers: Array<[string, Verify, "gateway" | "cognito", RegExp]> = [
    ["jsonwebtoken + jwks-rsa", jsonwebtokenWithJwksRsa, "gateway", /Unable to find a signing key/],
    ["jose createRemoteJWKSet", joseRemoteJwks, "gateway", /no applicable key found/],
    ["aws-jwt-verify JwtRsaVerifier", awsJwtRsaVerifier, "gateway", /JWK for kid .* not found/],
    ["aws-jwt-verify CognitoJwtVerifier", awsCognitoIdTokenVerifier, "cognito", /JWK for kid .* not found/],
    ["PyJWT (python3-jwt) with PyJWKClient", pythonPyJwt, "gateway", /Unable to find a signing key/],
  ];
  it.each(verifiers)(
    "%s accepts a valid IdToken, and refuses it once an emergency rotation revoked its key",
    async (_name, verify, which, revokedRefusal) => {
      const { instance, target } = which === "cognito" ? cognitoShaped : gateway;
      const before = await loginThrough(instance, clientId);
      await expect(verify(before.IdToken, target)).resolves.toMatchObject({
        iss: target.issuer,
        aud: clientId,
        sub: expect.any(String),
        tenant: "acme",
        token_use: "id",
        "cognito:username": "server-eu",
      });
      if (which === "gateway")
        await expect(verify(before.AccessToken, target)).resolves.toMatchObject({ token_use: "access" });

      const rotated = await emergencyRotation(h);
      expect(rotated.revokedKids).toContain(decodeProtectedHeader(before.IdToken).kid);
      await expect(verify(before.IdToken, target)).rejects.toThrow(revokedRefusal);
      const after = await loginThrough(instance, clientId);
      expect(decodeProtectedHeader(after.IdToken).kid).toBe(rotated.kid);
      await expect(verify(after.IdToken, target)).resolves.toMatchObject({ token_use: "id" });
    },
  );
});

describe("TOKEN_SIGNING_ALGORITHM=EdDSA, and a switch from it to RS256", () => {
  let h: Harness;
  let clientId: string;
  let target: VerifierTarget;
  beforeAll(async () => {
    h = await createHarness({ env: { TOKEN_SIGNING_ALGORITHM: "EdDSA" } });
    clientId = await h.createTenant("acme");
    await h.createUser("acme", "server-eu");
    target = {
      jwksUri: `${await h.listen()}/.well-known/jwks.json`,
      issuer: h.env.PUBLIC_URL!,
      audience: clientId,
    };
  });
  afterAll(async () => {
    await h?.close();
  });

  const seasons = (instance: Instance, token: string) =>
    instance.http.get("/seasons").set("Authorization", token);
  const publishedKeys = async (instance: Instance) =>
    ((await instance.http.get("/.well-known/jwks.json").expect(200)).body.keys as Array<{ kid: string }>).map(
      (key) => key.kid,
    );

  it("is a validated setting: RS256 by default, EdDSA on request, anything else a start-up error", () => {
    const { TOKEN_SIGNING_ALGORITHM: _, ...defaults } = h.env;
    expect(loadGatewayConfig(defaults).TOKEN_SIGNING_ALGORITHM).toBe("RS256");
    expect(loadGatewayConfig(h.env).TOKEN_SIGNING_ALGORITHM).toBe("EdDSA");
    for (const refused of ["HS256", "none", "rs256"]) {
      let error: unknown;
      try {
        loadGatewayConfig({ ...h.env, TOKEN_SIGNING_ALGORITHM: refused });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join()).toMatch(/TOKEN_SIGNING_ALGORITHM/);
    }
  });

  it("signs with Ed25519 as before: the gateway and jose accept its tokens, jsonwebtoken refuses them, an emergency rotation revokes them", async () => {
    const before = (await h.login("server-eu", clientId)).IdToken;
    const { keys } = (await h.http.get("/.well-known/jwks.json").expect(200)).body;
    expect(keys).toEqual([
      {
        kty: "OKP",
        crv: "Ed25519",
        x: expect.any(String),
        alg: "EdDSA",
        use: "sig",
        kid: expect.any(String),
      },
    ]);
    expect(decodeProtectedHeader(before)).toEqual({ alg: "EdDSA", kid: keys[0].kid, typ: "JWT" });
    await seasons(h, before).expect(200);
    await expect(joseRemoteJwks(before, target)).resolves.toMatchObject({ token_use: "id" });
    // Why RS256 is the default: Node's most used verifier does not know EdDSA.
    await expect(jsonwebtokenWithJwksRsa(before, target)).rejects.toThrow();

    await emergencyRotation(h);
    await seasons(h, before).expect(401);
    await expect(joseRemoteJwks(before, target)).rejects.toThrow(/no applicable key found/);
    const after = (await h.login("server-eu", clientId)).IdToken;
    expect(decodeProtectedHeader(after).alg).toBe("EdDSA");
    await seasons(h, after).expect(200);
  });

  it("switched to RS256, signs on with the EdDSA key until a rotation makes an RSA one; EdDSA tokens stay valid until they expire", async () => {
    const eddsa = (await h.login("server-eu", clientId)).IdToken;
    const eddsaKid = decodeProtectedHeader(eddsa).kid!;
    // A replica of the new setting beside one of the old (a rolling deploy): the previous release
    // verifies only EdDSA, so the new replica must not sign with RSA until a rotation.
    h.clock.advance(1_000);
    const switched = await h.startInstance({ TOKEN_SIGNING_ALGORITHM: "RS256" });
    const stillEddsa = (await loginThrough(switched, clientId)).IdToken;
    expect(decodeProtectedHeader(stillEddsa)).toMatchObject({ alg: "EdDSA", kid: eddsaKid });
    // Once the deploy is done: the operator's rotation (or the scheduled one) makes the RSA key.
    await switched.http.post("/admin/signing-keys/rotate").set(adminAuth).send({}).expect(201);
    const rs256 = (await loginThrough(switched, clientId)).IdToken;
    const rs256Kid = decodeProtectedHeader(rs256).kid!;
    expect(decodeProtectedHeader(rs256).alg).toBe("RS256");
    expect(await publishedKeys(switched)).toEqual([rs256Kid, eddsaKid]);
    for (const instance of [h, switched]) {
      await seasons(instance, eddsa).expect(200);
      await seasons(instance, rs256).expect(200);
    }
    await expect(joseRemoteJwks(eddsa, target)).resolves.toMatchObject({ token_use: "id" });
    await expect(jsonwebtokenWithJwksRsa(rs256, target)).resolves.toMatchObject({ token_use: "id" });
    // The replica still on EdDSA signs with the newer RSA key (once its cached key is a minute old)
    // instead of rotating back.
    h.clock.advance(61_000);
    expect(decodeProtectedHeader((await h.login("server-eu", clientId)).IdToken).kid).toBe(rs256Kid);

    // The EdDSA key leaves the JWKS once every token it signed has expired (an hour, plus a minute).
    h.clock.advance(3_600_000 + 60_000 + 1_000);
    expect(await publishedKeys(switched)).toEqual([rs256Kid]);
  });
});
