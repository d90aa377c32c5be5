import { randomBytes } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
// The gateway's server half, read by this test only (the package never depends on an app).
import {
  createVerifier,
  claimSignature as serverClaimSignature,
  serverKeyPair,
  sessionKey,
} from "../../../apps/gateway/src/identity/srp.js";
import {
  claimSignature,
  clientKeyPair,
  clientSessionKey,
  padHex,
  SRP_N,
  srpTimestamp,
} from "../src/login/srp-math.js";

describe("the SDK's SRP client against the gateway's SRP server", () => {
  it("derives the same session key and claim signature for the right password, another for a wrong one", () => {
    const poolName = "c01348f7fe15";
    const userId = "game-server-eu";
    const { salt, verifier } = createVerifier(poolName, userId, "correct horse");
    const v = BigInt(`0x${verifier}`);
    for (let i = 0; i < 3; i++) {
      const { a, A } = clientKeyPair();
      const { b, B } = serverKeyPair(v);
      const serverKey = sessionKey({ A, B, b, verifier: v }) as Buffer;
      const clientKey = clientSessionKey(a, A, {
        poolName,
        userId,
        password: "correct horse",
        saltHex: salt,
        B,
      });
      expect(clientKey.equals(serverKey)).toBe(true);

      const secretBlock = randomBytes(48).toString("base64");
      const timestamp = srpTimestamp();
      const signature = claimSignature(clientKey, { poolName, userId, secretBlock, timestamp });
      const expected = serverClaimSignature(serverKey, {
        poolName,
        userId,
        secretBlock: Buffer.from(secretBlock, "base64"),
        timestamp,
      });
      expect(signature).toBe(expected.toString("base64"));

      const wrong = clientSessionKey(a, A, { poolName, userId, password: "wrong", saltHex: salt, B });
      expect(wrong.equals(serverKey)).toBe(false);
    }
  });

  it("refuses a server value B that is 0 mod N", () => {
    const { a, A } = clientKeyPair();
    expect(() =>
      clientSessionKey(a, A, { poolName: "p", userId: "u", password: "x", saltHex: "01", B: SRP_N }),
    ).toThrow(/B is 0/);
  });

  it("pads hex as Java's BigInteger.toByteArray and writes TIMESTAMP as Cognito clients do", () => {
    expect(padHex(0xfn)).toBe("0f");
    expect(padHex(0x8fn)).toBe("008f");
    expect(padHex(0x7fn)).toBe("7f");
    expect(srpTimestamp(new Date("2026-11-03T09:05:07Z"))).toBe("Tue Nov 3 09:05:07 UTC 2026");
  });
});
