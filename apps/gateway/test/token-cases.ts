import { createPublicKey, randomUUID } from "node:crypto";
import { generateKeyPair, SignJWT } from "jose";
import { adminAuth, type Harness } from "./harness.js";

/**
 * The credentials every authenticated entry must refuse, one list for both transports: the REST
 * routes (`Authorization`) and the WebSocket upgrade (`?authorization=` or `Authorization`).
 * `undefined` is no credential at all.
 */
export interface TokenCases {
  /** A good IdToken of `server-eu` (tenant acme), for the one case that must be accepted. */
  valid: string;
  forged: ReadonlyMap<ForgedKind, string | undefined>;
}

export const FORGED_KINDS = [
  "no Authorization header",
  "an empty Authorization header",
  "garbage",
  "a Bearer scheme with garbage",
  "a token whose tenant was edited (signature kept)",
  "a token whose role was raised (signature kept)",
  "a token with its signature cut off",
  "alg none",
  "HS256 keyed with the published public key (algorithm confusion)",
  "HS256 keyed with the published public key's PEM (algorithm confusion)",
  "a token whose alg is not its key's (EdDSA under the gateway's RS256 kid)",
  "a token signed by the gateway's key whose header names no key (no kid)",
  "an expired token",
  "a ten-year token signed by the gateway's key",
  "a token issued a year ahead by the gateway's key",
  "a token for another tenant's app client",
  "a token for an unknown app client",
  "a token from another issuer",
  "a token of a user that does not exist",
  "a token signed by an unknown key (unknown kid)",
  "a token signed by an unknown key under the gateway's kid",
  "a valid token of a disabled user",
] as const;
export type ForgedKind = (typeof FORGED_KINDS)[number];

const YEAR_SECONDS = 365 * 86_400;

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * Makes the tenants acme and globex, the users server-eu and soon-disabled (then disabled), and
 * from a real login every forged kind: edited, cut, re-signed or signed by keys that are not ours.
 */
export async function makeTokenCases(h: Harness): Promise<TokenCases> {
  const clientId = await h.createTenant("acme");
  const otherClientId = await h.createTenant("globex");
  await h.createUser("acme", "server-eu");
  await h.createUser("acme", "soon-disabled");
  const good = await h.login("server-eu", clientId);
  const [header, payload, signature] = good.IdToken.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  const now = Math.floor(h.clock.now().getTime() / 1000);
  const activeKey = await h.gateway.signingKeys.active();
  /** A token signed by the gateway's real active key, with claims of the test's choosing. */
  const signed = (edits: Record<string, unknown>) =>
    new SignJWT({ ...claims, ...edits })
      .setProtectedHeader({ alg: activeKey.algorithm, kid: activeKey.kid, typ: "JWT" })
      .sign(activeKey.privateKey);
  const publishedKey = (await h.http.get("/.well-known/jwks.json")).body.keys[0];
  const publishedPem = createPublicKey({ key: publishedKey, format: "jwk" }).export({
    type: "spki",
    format: "pem",
  });
  const { privateKey: foreignKey } = await generateKeyPair(activeKey.algorithm);
  const { privateKey: foreignEd25519 } = await generateKeyPair("EdDSA");
  const disabled = await h.login("soon-disabled", clientId);
  await h.http
    .patch("/admin/tenants/acme/users/soon-disabled")
    .set(adminAuth)
    .send({ disabled: true })
    .expect(200);
  const forged: Record<ForgedKind, string | undefined> = {
    "no Authorization header": undefined,
    "an empty Authorization header": "",
    garbage: "not-a-jwt-at-all",
    "a Bearer scheme with garbage": "Bearer a.b.c",
    "a token whose tenant was edited (signature kept)": [
      header,
      b64({ ...claims, tenant: "globex" }),
      signature,
    ].join("."),
    "a token whose role was raised (signature kept)": [
      header,
      b64({ ...claims, role: "admin" }),
      signature,
    ].join("."),
    "a token with its signature cut off": `${header}.${payload}.`,
    "alg none": [b64({ alg: "none", typ: "JWT" }), payload, ""].join("."),
    "HS256 keyed with the published public key (algorithm confusion)": await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: JSON.parse(Buffer.from(header, "base64url").toString()).kid })
      .sign(new TextEncoder().encode(JSON.stringify(publishedKey))),
    "HS256 keyed with the published public key's PEM (algorithm confusion)": await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: activeKey.kid, typ: "JWT" })
      .sign(new TextEncoder().encode(String(publishedPem))),
    "a token whose alg is not its key's (EdDSA under the gateway's RS256 kid)": await new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", kid: activeKey.kid, typ: "JWT" })
      .sign(foreignEd25519),
    "a token signed by the gateway's key whose header names no key (no kid)": await new SignJWT(claims)
      .setProtectedHeader({ alg: activeKey.algorithm, typ: "JWT" })
      .sign(activeKey.privateKey),
    "an expired token": await signed({ iat: now - 7200, exp: now - 3600 }),
    "a ten-year token signed by the gateway's key": await signed({ iat: now, exp: now + 10 * YEAR_SECONDS }),
    "a token issued a year ahead by the gateway's key": await signed({
      iat: now + YEAR_SECONDS,
      exp: now + YEAR_SECONDS + 3600,
    }),
    "a token for another tenant's app client": await signed({ aud: otherClientId }),
    "a token for an unknown app client": await signed({ aud: "unknownclient000000000000" }),
    "a token from another issuer": await signed({ iss: "https://evil.example" }),
    "a token of a user that does not exist": await signed({ sub: "usr_missing" }),
    "a token signed by an unknown key (unknown kid)": await new SignJWT(claims)
      .setProtectedHeader({ alg: activeKey.algorithm, kid: randomUUID() })
      .sign(foreignKey),
    "a token signed by an unknown key under the gateway's kid": await new SignJWT(claims)
      .setProtectedHeader({ alg: activeKey.algorithm, kid: activeKey.kid })
      .sign(foreignKey),
    "a valid token of a disabled user": disabled.IdToken,
  };
  return {
    valid: good.IdToken,
    forged: new Map(Object.entries(forged) as Array<[ForgedKind, string | undefined]>),
  };
}
