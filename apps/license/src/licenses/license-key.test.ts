import { describe, expect, it } from "@jest/globals";
import { displayPrefix, generateLicenseKey, hashLicenseKey, isWellFormedLicenseKey } from "./license-key.js";

describe("license keys", () => {
  it("generates keys that match the contract's pattern", () => {
    for (let i = 0; i < 200; i++) expect(isWellFormedLicenseKey(generateLicenseKey())).toBe(true);
  });

  it("never generates the same key twice in ten thousand tries", () => {
    const keys = new Set(Array.from({ length: 10_000 }, generateLicenseKey));
    expect(keys.size).toBe(10_000);
  });

  it("uses every base62 character", () => {
    const seen = new Set(Array.from({ length: 300 }, generateLicenseKey).flatMap((k) => [...k.slice(3)]));
    expect(seen.size).toBe(62);
  });

  it("hashes a key to 64 hex characters that do not contain the key", () => {
    const key = generateLicenseKey();
    const hash = hashLicenseKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashLicenseKey(key));
    expect(hash).not.toContain(key.slice(3, 11));
  });

  it("shows only the first eight characters as the display prefix", () => {
    expect(displayPrefix("lk_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")).toBe("lk_ABCDE");
  });

  it("rejects keys of the wrong shape", () => {
    for (const bad of [
      "",
      "lk_",
      "lk_short",
      `LK_${"a".repeat(32)}`,
      `lk_${"a".repeat(31)}!`,
      `lk_${"a".repeat(33)}`,
    ]) {
      expect(isWellFormedLicenseKey(bad)).toBe(false);
    }
  });
});
