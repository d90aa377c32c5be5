import { describe, expect, it } from "@jest/globals";
import { createLocalJWKSet, jwtVerify, SignJWT } from "jose";
import type { SigningKeyStore, StoredSigningKey } from "./signing-key-store.js";
import { SIGNING_ALGORITHM, SigningKeys } from "./signing-keys.js";

/** The store contract in memory: one array, the "transaction" is the whole call. */
function memoryStore(): SigningKeyStore & { rows: StoredSigningKey[] } {
  const rows: StoredSigningKey[] = [];
  const newestFirst = () => [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  return {
    rows,
    exclusively: (work) =>
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
    published: async (after) =>
      newestFirst().filter((r) => r.revokedAt === null && (r.retiredAt === null || r.retiredAt > after)),
  };
}

function setup(secret = "a-long-enough-signing-key-secret-0123456789") {
  let now = Date.parse("2026-11-23T10:00:00Z");
  const clock = { now: () => new Date(now) };
  const store = memoryStore();
  const keys = new SigningKeys({
    store,
    clock,
    logger: { info: () => {}, warn: () => {} },
    secret,
    sealingSalt: "arena-test",
    rotateAfterMs: 30 * 86_400_000,
    signedTtlMs: 3_600_000,
    cacheTtlMs: 0,
  });
  return { keys, store, advance: (ms: number) => (now += ms), clock };
}

async function sign(keys: SigningKeys) {
  const key = await keys.active();
  const token = await new SignJWT({ sub: "x" })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid })
    .sign(key.privateKey);
  return { token, kid: key.kid };
}

describe("SigningKeys over a store", () => {
  it("creates one key on first use and keeps using it", async () => {
    const { keys, store } = setup();
    const a = await keys.active();
    const b = await keys.active();
    expect(a.kid).toBe(b.kid);
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0]!.sealedPrivateJwk).toMatch(/^v1\./);
    expect(store.rows[0]!.publicJwk).not.toHaveProperty("d");
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

  it("stops signing with a cached key once another replica revoked it", async () => {
    const { keys, store, clock } = setup();
    const replica = new SigningKeys({
      store,
      clock,
      logger: { info: () => {}, warn: () => {} },
      secret: "a-long-enough-signing-key-secret-0123456789",
      sealingSalt: "arena-test",
      rotateAfterMs: 30 * 86_400_000,
      signedTtlMs: 3_600_000,
      cacheTtlMs: 60_000,
    });
    const old = await replica.active();
    const fresh = await keys.rotate({ revokePrevious: true });
    expect((await replica.active()).kid).toBe(old.kid);
    await replica.publicJwks();
    expect((await replica.active()).kid).toBe(fresh.kid);
  });

  it("replaces a key it cannot unseal (the secret changed), keeping the old one published", async () => {
    const { keys, store } = setup();
    const old = await keys.active();
    const other = new SigningKeys({
      store,
      clock: { now: () => new Date() },
      logger: { info: () => {}, warn: () => {} },
      secret: "another-long-enough-signing-key-secret-987",
      sealingSalt: "arena-test",
      rotateAfterMs: 30 * 86_400_000,
      signedTtlMs: 3_600_000,
    });
    const fresh = await other.active();
    expect(fresh.kid).not.toBe(old.kid);
    expect((await other.publicJwks()).keys.map((k) => k.kid)).toContain(old.kid);
  });
});
