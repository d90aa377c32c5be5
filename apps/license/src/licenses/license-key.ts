import { createHash } from "node:crypto";
import { LICENSE_KEY_PATTERN } from "@arena/contracts";
import { randomBase62 } from "../ids.js";

const KEY_PREFIX = "lk_";
const KEY_BODY_LENGTH = 32;
/** Characters kept for display (`lk_` and five more): recognisable, yet ~160 bits stay secret. */
export const DISPLAY_PREFIX_LENGTH = 8;

const wellFormed = new RegExp(LICENSE_KEY_PATTERN);

/** A new license key: `lk_` and 32 base62 characters, about 190 bits of randomness. */
export function generateLicenseKey(): string {
  return KEY_PREFIX + randomBase62(KEY_BODY_LENGTH);
}

/**
 * The stored form of a key. A fast unsalted hash is enough here: keys are 190-bit random secrets,
 * not passwords, so there is no dictionary to try and a salt or a slow hash would add nothing but
 * the cost of finding the row (lookup is by hash).
 */
export function hashLicenseKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function isWellFormedLicenseKey(key: string): boolean {
  return wellFormed.test(key);
}
