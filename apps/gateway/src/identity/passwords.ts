import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Passwords are hashed with scrypt (node:crypto, no native dependency): N = 2^logN (default 2^15),
 * r = 8, p = 1, a 16-byte random salt, a 32-byte key. That is 32 MiB and about 50-100 ms per hash
 * here, OWASP's recommended floor for scrypt. The parameters are stored with each hash, so raising
 * the cost later leaves existing hashes verifiable.
 */
export const SCRYPT_R = 8;
export const SCRYPT_P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export interface ScryptCost {
  logN: number;
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) => {
    // maxmem above 128·N·r bytes, which scrypt needs; node's default (32 MiB) is just short of it.
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** `scrypt$<logN>$<r>$<p>$<salt>$<key>`, salt and key in base64url. */
export async function hashPassword(password: string, { logN }: ScryptCost): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, logN, SCRYPT_R, SCRYPT_P);
  return ["scrypt", logN, SCRYPT_R, SCRYPT_P, salt.toString("base64url"), key.toString("base64url")].join(
    "$",
  );
}

/** True when `password` matches; a malformed stored hash never matches. Constant-time comparison. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !logN || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
