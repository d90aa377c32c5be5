import { randomBytes } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { g, k, modPow, N, padHex, powModN } from "./srp.js";
import { parseSrpTimestamp } from "./srp-timestamp.js";

const random = (bytes: number) => BigInt(`0x${randomBytes(bytes).toString("hex")}`);

describe("SRP arithmetic", () => {
  it("powModN (OpenSSL) agrees with plain square-and-multiply, trivial bases included", () => {
    const bases = [0n, 1n, 2n, N - 1n, N - 2n, N, N + 5n, random(384), random(400)];
    for (const base of bases) {
      for (const exponent of [0n, 1n, 2n, random(32), random(16)]) {
        expect(powModN(base, exponent)).toBe(modPow(base, exponent, N));
      }
    }
    expect(powModN(g, 2n ** 256n + 1n)).toBe(modPow(g, 2n ** 256n + 1n, N));
  });

  it("pads hex as Java's BigInteger.toByteArray: even length, 00 before a high digit", () => {
    expect(padHex(0x14n)).toBe("14");
    expect(padHex(0xecn)).toBe("00ec");
    expect(padHex(0xabcn)).toBe("0abc");
    expect(padHex(N).startsWith("00ff")).toBe(true);
    // k as amazon-cognito-identity-js computes it: H(padHex(N) ‖ padHex(g)).
    expect(k.toString(16)).toBe("538282c4354742d7cbbde2359fcf67f9f5b3a6b08791e5011b43b8a5b66d9ee6");
  });
});

describe("TIMESTAMP", () => {
  it("reads Cognito's clock text, with or without a leading zero on the day", () => {
    expect(parseSrpTimestamp("Tue Nov 3 09:05:03 UTC 2026")?.toISOString()).toBe("2026-11-03T09:05:03.000Z");
    expect(parseSrpTimestamp("Tue Nov 03 09:05:03 UTC 2026")?.toISOString()).toBe("2026-11-03T09:05:03.000Z");
  });

  it("refuses a wrong weekday, an impossible date and other formats", () => {
    for (const text of [
      "Mon Nov 3 09:05:03 UTC 2026",
      "Tue Feb 31 09:05:03 UTC 2026",
      "Tue Nov 3 25:05:03 UTC 2026",
      "2026-11-03T09:05:03Z",
      "Tue Nov 3 09:05:03 GMT 2026",
    ]) {
      expect(parseSrpTimestamp(text)).toBeUndefined();
    }
  });
});
