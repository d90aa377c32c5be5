import { randomUUID } from "node:crypto";
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import { open, seal } from "./sealed-box.js";
import type { StoredSigningKey } from "./signing-key-store.js";

/**
 * The JWS algorithms keys of this package sign with. RS256 (RSA 2048, PKCS#1 v1.5 with SHA-256) is
 * what Cognito signs with and every JWT library verifies; EdDSA (Ed25519) gives smaller keys and
 * tokens and faster signatures, but many verifiers (jsonwebtoken, API gateways) refuse it.
 */
export const SIGNING_ALGORITHMS = ["RS256", "EdDSA"] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The key that signs now. */
export interface ActiveSigningKey {
  kid: string;
  /** The JWS `alg` the key signs with (its JWK's `alg`). */
  algorithm: SigningAlgorithm;
  privateKey: CryptoKey;
  createdAt: Date;
}

/** The key-generation parameters of each algorithm: no choice left to the caller. */
const KEY_PARAMETERS: Record<SigningAlgorithm, { crv?: string; modulusLength?: number }> = {
  RS256: { modulusLength: 2048 },
  EdDSA: { crv: "Ed25519" },
};

const isSigningAlgorithm = (value: unknown): value is SigningAlgorithm =>
  SIGNING_ALGORITHMS.includes(value as SigningAlgorithm);

/**
 * The algorithm a stored key signs with: its public JWK's `alg`, written when the key was made
 * (every key ever stored has one; keys made before RS256 existed say `EdDSA`).
 */
export function keyAlgorithm(key: Pick<StoredSigningKey, "kid" | "publicJwk">): SigningAlgorithm {
  const { alg } = key.publicJwk;
  if (!isSigningAlgorithm(alg)) throw new Error(`signing key ${key.kid} has an unknown algorithm ${alg}`);
  return alg;
}

/** A new key pair, not stored yet: the key to sign with, the public JWK and the sealed private JWK. */
export async function createKeyPair(
  algorithm: SigningAlgorithm,
  sealingKey: Buffer,
): Promise<{ kid: string; privateKey: CryptoKey; publicJwk: JWK; sealedPrivateJwk: string }> {
  const kid = randomUUID();
  const { publicKey, privateKey } = await generateKeyPair(algorithm, {
    ...KEY_PARAMETERS[algorithm],
    extractable: true,
  });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: algorithm, use: "sig" };
  const sealedPrivateJwk = seal(JSON.stringify(await exportJWK(privateKey)), sealingKey, kid);
  return { kid, privateKey, publicJwk, sealedPrivateJwk };
}

/** The signing key of a stored row; throws when it cannot be unsealed (SIGNING_KEY_SECRET changed). */
export async function unsealPrivateKey(
  stored: StoredSigningKey,
  sealingKey: Buffer,
): Promise<ActiveSigningKey> {
  const algorithm = keyAlgorithm(stored);
  const jwk = JSON.parse(open(stored.sealedPrivateJwk, sealingKey, stored.kid)) as JWK;
  const privateKey = (await importJWK(jwk, algorithm)) as CryptoKey;
  return { kid: stored.kid, algorithm, privateKey, createdAt: stored.createdAt };
}

/** A JWT signed by `key`: its algorithm and `kid` in the header, as every verifier expects. */
export function signJwt(key: ActiveSigningKey, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: "JWT" })
    .sign(key.privateKey);
}
