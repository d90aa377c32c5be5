import { validateRotatedSigningKey } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bearer, createHarness, type Harness } from "./harness.js";

let h: Harness;
let licenseKey: string;
beforeAll(async () => {
  h = await createHarness({ env: { LEASE_TTL_SECONDS: "3600" } });
  const created = await h.http
    .post("/admin/licenses")
    .set("Authorization", bearer())
    .send({ name: "K", email: "k@example.com", edition: "community" });
  licenseKey = created.body.licenseKey;
});
afterAll(async () => {
  await h?.close();
});

const lease = async (http = h.http) =>
  (await http.post("/v1/licenses/validate").send({ licenseKey }).expect(200)).body.lease as string;
const jwksKids = async () =>
  ((await h.http.get("/.well-known/jwks.json").expect(200)).body.keys as Array<{ kid: string }>).map(
    (k) => k.kid,
  );

describe("lease signing keys", () => {
  it("are shared by replicas, so a lease from one verifies with the other's JWKS", async () => {
    const replica = await h.startInstance();
    const fromReplica = await lease(replica.http);
    const fromMain = await lease();
    const a = await h.verifyLease(fromReplica);
    const b = await h.verifyLease(fromMain);
    expect(a.kid).toBe(b.kid);
    expect(await h.db.signingKey.count()).toBe(1);
  });

  it("are sealed at rest: the stored private key is not a readable JWK", async () => {
    const rows = await h.db.signingKey.findMany();
    for (const row of rows) {
      expect(row.sealedPrivateJwk).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
      expect(row.sealedPrivateJwk).not.toContain('"d"');
      expect(row.publicJwk).not.toHaveProperty("d");
    }
  });

  it("rotate on admin request, and leases signed before still verify", async () => {
    const before = await lease();
    const oldKid = (await h.verifyLease(before)).kid;
    const rotated = await h.http
      .post("/admin/signing-keys/rotate")
      .set("Authorization", bearer())
      .expect(201);
    expect(validateRotatedSigningKey(rotated.body)).toBe(true);
    expect(rotated.body.kid).not.toBe(oldKid);

    const after = await lease();
    expect((await h.verifyLease(after)).kid).toBe(rotated.body.kid);
    expect((await h.verifyLease(before)).kid).toBe(oldKid);
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, rotated.body.kid]));
  });

  it("stop publishing a retired key once every lease it signed has expired", async () => {
    const oldKid = (await h.verifyLease(await lease())).kid!;
    await h.http.post("/admin/signing-keys/rotate").set("Authorization", bearer()).expect(201);
    h.clock.advance(3600 * 1000 - 1000);
    expect(await jwksKids()).toContain(oldKid);
    h.clock.advance(2 * 60 * 1000);
    expect(await jwksKids()).not.toContain(oldKid);
  });

  it("rotate by themselves once older than SIGNING_KEY_ROTATION_DAYS", async () => {
    const kid = (await h.verifyLease(await lease())).kid;
    h.clock.advance(31 * 86_400_000);
    const next = (await h.verifyLease(await lease())).kid;
    expect(next).not.toBe(kid);
    expect(await jwksKids()).toContain(kid);
  });

  it("leave the JWKS at once at an emergency rotation (revokePrevious), and a bad body is a 400", async () => {
    const oldKid = (await h.verifyLease(await lease())).kid!;
    const rotated = await h.http
      .post("/admin/signing-keys/rotate")
      .set("Authorization", bearer())
      .send({ revokePrevious: true })
      .expect(201);
    expect(validateRotatedSigningKey(rotated.body)).toBe(true);
    expect(rotated.body.revokedKids).toContain(oldKid);
    expect(await jwksKids()).toEqual([rotated.body.kid]);
    expect((await h.verifyLease(await lease())).kid).toBe(rotated.body.kid);
    const bad = await h.http
      .post("/admin/signing-keys/rotate")
      .set("Authorization", bearer())
      .send({ revokePrevious: "yes" })
      .expect(400);
    expect(bad.body.errors).toEqual([{ pointer: "/revokePrevious", detail: "must be boolean" }]);
  });

  it("are replaced, not lost, when SIGNING_KEY_SECRET changes; the old public key stays published", async () => {
    const kid = (await h.verifyLease(await lease())).kid;
    const changed = await h.startInstance({
      env: { SIGNING_KEY_SECRET: "a-completely-different-secret-0123456789" },
    });
    const fresh = await lease(changed.http);
    const { kid: freshKid } = await h.verifyLease(fresh);
    expect(freshKid).not.toBe(kid);
    expect(await jwksKids()).toEqual(expect.arrayContaining([kid, freshKid]));
  });
});
