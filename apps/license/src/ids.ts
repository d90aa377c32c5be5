import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// 248 = 4 * 62: bytes at or above it are discarded so every character is equally likely.
const UNBIASED_LIMIT = 248;

/** `length` base62 characters from the system CSPRNG, without modulo bias (~5.95 bits each). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Our ids carry a readable prefix: `lic_…` for licenses, `key_…` for license keys. */
export function newId(prefix: "lic" | "key"): string {
  return `${prefix}_${randomBase62(20)}`;
}
