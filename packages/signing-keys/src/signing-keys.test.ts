import { describe, expect, it } from "@jest/globals";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { SIGNING_ALGORITHMS, type SigningAlgorithm, signJwt } from "./key-algorithms.js";
import type { SigningKeyStore, StoredSigningKey } from "./signing-key-store.js";
import { SigningKeys, type SigningKeysOptions } from "./signing-keys.js";

/** The store contract in memory: one array; `exclusively` runs one piece of work at a time (the lock). */
function memoryStore(): SigningKeyStore & { rows: StoredSigningKey[] } {
  const rows: StoredSigningKey[] = [];
  const newestFirst = () => [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  let lock: Promise<unknown> = Promise.resolve();
  return {
    rows,
    exclusively: (work) => {
      const run = lock.then(() =>
        work({
          current: async () => newestFirst().find((r) => r.retiredAt === null),
          replaceActive: async (key, now, revokePrevious) => {
            const revoked: string[] = [];
            for (const row of rows) {
              if (row.retiredAt === null) row.retiredAt = now;
              if (revokePrevious && row.revokedAt === null) {
                row.revokedAt = now;
                revoked.push(row.kid);
              }
            }
            rows.push({ ...key, retiredAt: null, revokedAt: null });
            return revoked;
          },
        }),
      );
      lock = run.catch(() => {});
      return run;
    },
    published: async (after) =>
      newestFirst().filter((r) => r.revokedAt === null && (r.retiredAt === null || r.retiredAt > after)),
  };
}

const SECRET = "a-long-enough-signing-key-secret-0123456789";
const ROTATE_AFTER_MS = 30 * 86_400_000;

function setupWith(algorithm: SigningAlgorithm) {
  let now = Date.parse("2026-11-23T10:00:00Z");
  const clock = { now: () => new Date(now) };
  const store = memoryStore();
  /** Another instance (a replica, a restart with other settings) over the same store and clock. */
  const instance = (options: Partial<SigningKeysOptions> = {}) =>
    new SigningKeys({
      store,
      clock,
      logger: { info: () => {}, warn: () => {} },
      algorithm,
      secret: SECRET,
      sealingSalt: "arena-test",
      rotateAfterMs: ROTATE_AFTER_MS,
      signedTtlMs: 3_600_000,
      cacheTtlMs: 0,
      ...options,
    });
  return { keys: instance(), instance, store, advance: (ms: number) => (now += ms), clock };
}

async function sign(keys: SigningKeys) {
  const key = await keys.active();
  return { token: await signJwt(key, { sub: "x" }), kid: key.kid };
}

describe.each(SIGNING_ALGORITHMS)("SigningKeys over a store, signing with %s", (algorithm) => {
  const setup = () => setupWith(algorithm);

  it("creates one key on first use and keeps using it", async () => {
    const { keys, store } = setup();
    const a = await keys.active();
    const b = await keys.active();
    expect(a.kid).toBe(b.kid);
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0]!.sealedPrivateJwk).toMatch(/^v1\./);
    expect(store.rows[0]!.publicJwk).not.toHaveProperty("d");
  });

  it("publishes the key as verifiers expect it: its alg, use sig, its kid and no private part", async () => {
    const { keys } = setup();
    const { token, kid } = await sign(keys);
    expect(decodeProtectedHeader(token)).toEqual({ alg: algorithm, kid, typ: "JWT" });
    const [jwk] = (await keys.publicJwks()).keys;
    const shape =
      algorithm === "RS256"
        ? { kty: "RSA", e: "AQAB", n: expect.any(String) }
        : { kty: "OKP", crv: "Ed25519", x: expect.any(String) };
    expect(jwk).toEqual({ ...shape, alg: algorithm, use: "sig", kid });
    if (algorithm === "RS256") expect(Buffer.from(jwk!.n!, "base64url")).toHaveLength(256);
  });

  it("rotates on demand and after the rotation age, publishing old keys while what they signed may be live", async () => {
    const { keys, advance, clock } = setup();
    const first = await sign(keys);
    advance(1_000);
    const rotated = await keys.rotate();
    expect(rotated.kid).not.toBe(first.kid);
    const jwks = await keys.publicJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotated.kid, first.kid]);
    await jwtVerify(first.token, createLocalJWKSet(jwks), { currentDate: clock.now() });
    advance(3_600_000 + 1);
    expect((await keys.publicJwks()).keys.map((k) => k.kid)).toEqual([rotated.kid]);
    advance(30 * 86_400_000);
    expect((await keys.active()).kid).not.toBe(rotated.kid);
  });

  it("revokes every earlier key at an emergency rotation: unpublished at once, its signatures refused", async () => {
    const { keys, advance, clock } = setup();
    const first = await sign(keys);
    advance(1_000);
    await keys.rotate();
    const second = await sign(keys);
    advance(1_000);
    const rotated = await keys.rotate({ revokePrevious: true });
    expect(rotated.revokedKids?.sort()).toEqual([first.kid, second.kid].sort());
    expect(keys.generation).toBe(3);
    const jwks = await keys.publicJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotated.kid]);
    await expect(
      jwtVerify(second.token, createLocalJWKSet(jwks), { currentDate: clock.now() }),
    ).rejects.toThrow(/no applicable key/);
    expect((await keys.rotate()).revokedKids).toBeUndefined();
    expect((await keys.publicJwks()).keys).toHaveLength(2);
  });

  it("makes one key when replicas need their first at the same time (each made one, outside the lock)", async () => {
    const { keys, instance, store } = setup();
    const [a, b, c] = await Promise.all([keys.active(), instance().active(), instance().active()]);
    expect(new Set([a.kid, b.kid, c.kid]).size).toBe(1);
    expect(store.rows).toHaveLength(1);
  });

  it("stops signing with a cached key once another replica revoked it", async () => {
    const { keys, instance } = setup();
    const replica = instance({ cacheTtlMs: 60_000 });
    const old = await replica.active();
    const fresh = await keys.rotate({ revokePrevious: true });
    expect((await replica.active()).kid).toBe(old.kid);
    await replica.publicJwks();
    expect((await replica.active()).kid).toBe(fresh.kid);
  });

  it("replaces a key it cannot unseal (the secret changed), keeping the old one published", async () => {
    const { keys, instance } = setup();
    const old = await keys.active();
    const other = instance({ secret: "another-long-enough-signing-key-secret-987", cacheTtlMs: undefined });
    const fresh = await other.active();
    expect(fresh.kid).not.toBe(old.kid);
    expect((await other.publicJwks()).keys.map((k) => k.kid)).toContain(old.kid);
  });
});

describe("a change of the signing algorithm", () => {
  it("signs on with the current key until the next rotation, which makes a key of the new algorithm; the old key's tokens verify until they expire", async () => {
    const { keys: before, instance, advance, clock } = setupWith("EdDSA");
    const old = await sign(before);
    advance(60_000);
    const after = instance({ algorithm: "RS256" });
    expect((await sign(after)).kid).toBe(old.kid);
    const rotated = await after.rotate();
    expect(rotated.algorithm).toBe("RS256");
    const fresh = await sign(after);
    expect(fresh.kid).toBe(rotated.kid);
    expect(decodeProtectedHeader(fresh.token).alg).toBe("RS256");
    const jwks = await after.publicJwks();
    expect(jwks.keys.map((k) => [k.kid, k.alg])).toEqual([
      [fresh.kid, "RS256"],
      [old.kid, "EdDSA"],
    ]);
    for (const { token } of [old, fresh])
      await jwtVerify(token, createLocalJWKSet(jwks), { currentDate: clock.now() });
    advance(3_600_000 + 1);
    expect((await after.publicJwks()).keys.map((k) => k.kid)).toEqual([fresh.kid]);
  });

  it("makes a key of the new algorithm at the scheduled rotation", async () => {
    const { keys: before, instance, advance } = setupWith("EdDSA");
    const old = await sign(before);
    const after = instance({ algorithm: "RS256" });
    advance(ROTATE_AFTER_MS);
    const fresh = await sign(after);
    expect(fresh.kid).not.toBe(old.kid);
    expect(decodeProtectedHeader(fresh.token).alg).toBe("RS256");
  });

  it("lets replicas of both settings sign with one key, so they never take turns", async () => {
    const { keys: oldSetting, instance, advance } = setupWith("EdDSA");
    const first = await sign(oldSetting);
    const newSetting = instance({ algorithm: "RS256" });
    for (let round = 0; round < 3; round++) {
      advance(1_000);
      expect((await sign(oldSetting)).kid).toBe(first.kid);
      expect((await sign(newSetting)).kid).toBe(first.kid);
    }
    const rsa = await newSetting.rotate();
    advance(61_000);
    expect((await sign(oldSetting)).kid).toBe(rsa.kid);
    // An explicit rotation makes a key of the rotating instance's own algorithm.
    expect((await oldSetting.rotate()).algorithm).toBe("EdDSA");
  });

  it("revokes the keys of both algorithms at an emergency rotation", async () => {
    const { keys: before, instance, advance } = setupWith("EdDSA");
    const eddsa = await sign(before);
    advance(1_000);
    const after = instance({ algorithm: "RS256" });
    const rsa = await after.rotate();
    const rotated = await after.rotate({ revokePrevious: true });
    expect(rotated.algorithm).toBe("RS256");
    expect(rotated.revokedKids?.sort()).toEqual([eddsa.kid, rsa.kid].sort());
    expect((await after.publicJwks()).keys.map((k) => k.kid)).toEqual([rotated.kid]);
  });
});
