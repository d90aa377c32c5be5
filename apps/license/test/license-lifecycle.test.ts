import { validateRegistrationAccepted } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bearer, createHarness, type Harness, nextIp } from "./harness.js";
import { keyInMail } from "./mail-catcher.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("a community license from registration to revocation", () => {
  it("registers, mails a key, validates it, follows an upgrade and refuses it once revoked", async () => {
    const email = "studio@example.com";
    const registered = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "Studio", email })
      .expect(202);
    expect(validateRegistrationAccepted(registered.body)).toBe(true);
    expect(registered.text).not.toMatch(/lk_/);

    const [mail] = await h.mail.waitFor(email);
    const licenseKey = keyInMail(mail!);
    expect(mail!.text).toContain(`LICENSE_KEY=${licenseKey}`);
    expect(mail!.text).toContain("LICENSE_URL=http://license.test");

    const first = await h.http.post("/v1/licenses/validate").send({ licenseKey }).expect(200);
    expect(first.body.edition).toBe("community");
    const firstLease = await h.verifyLease(first.body.lease);
    expect(firstLease.payload).toMatchObject({
      edition: "community",
      iss: "arena-license",
      aud: "arena-matchmaker",
    });
    expect(firstLease.payload.sub).toMatch(/^lic_/);
    expect(firstLease.kid).toBeDefined();

    const licenseId = firstLease.payload.sub!;
    await h.http
      .patch(`/admin/licenses/${licenseId}`)
      .set("Authorization", bearer())
      .send({ edition: "advanced" })
      .expect(200);
    const upgraded = await h.http.post("/v1/licenses/validate").send({ licenseKey }).expect(200);
    expect(upgraded.body.edition).toBe("advanced");
    expect((await h.verifyLease(upgraded.body.lease)).payload.edition).toBe("advanced");

    await h.http.delete(`/admin/licenses/${licenseId}`).set("Authorization", bearer()).expect(204);
    const refused = await h.http.post("/v1/licenses/validate").send({ licenseKey }).expect(403);
    expect(refused.body.code).toBe("LICENSE_INVALID");
  });

  it("gives a lease that expires LEASE_TTL_SECONDS after the validation", async () => {
    const licenseKey = await h.registerAndReadKey("ttl@example.com");
    const res = await h.http.post("/v1/licenses/validate").send({ licenseKey }).expect(200);
    const { payload } = await h.verifyLease(res.body.lease);
    expect(payload.exp! - payload.iat!).toBe(86_400);
    expect(new Date(res.body.expiresAt).getTime()).toBe(payload.exp! * 1000);
    expect(Math.abs(payload.iat! * 1000 - h.clock.now().getTime())).toBeLessThan(1000);
  });

  it("records when a license was last validated", async () => {
    const licenseKey = await h.registerAndReadKey("seen@example.com");
    const row = await h.db.license.findFirstOrThrow({ where: { emailNormalized: "seen@example.com" } });
    expect(row.lastValidatedAt).toBeNull();
    await h.http.post("/v1/licenses/validate").send({ licenseKey }).expect(200);
    const after = await h.db.license.findUniqueOrThrow({ where: { id: row.id } });
    expect(after.lastValidatedAt?.getTime()).toBe(h.clock.now().getTime());
  });

  it("answers unknown, malformed and revoked keys with the same 403 problem", async () => {
    const revokedKey = await h.registerAndReadKey("revoked@example.com");
    const row = await h.db.license.findFirstOrThrow({ where: { emailNormalized: "revoked@example.com" } });
    await h.http.delete(`/admin/licenses/${row.id}`).set("Authorization", bearer()).expect(204);

    const candidates = [revokedKey, `lk_${"A".repeat(32)}`, "not-a-key", "lk_short", `${revokedKey}x`];
    const answers = await Promise.all(
      candidates.map((licenseKey) => h.http.post("/v1/licenses/validate").send({ licenseKey })),
    );
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      const { requestId: _id, ...rest } = res.body;
      expect(rest).toEqual({
        type: "https://arena.dev/problems/license-invalid",
        title: "License key is not valid",
        status: 403,
        code: "LICENSE_INVALID",
        detail: "The license key is unknown, revoked or malformed",
        instance: "/v1/licenses/validate",
      });
    }
  });

  it("publishes Ed25519 public keys only, never a private part", async () => {
    const res = await h.http.get("/.well-known/jwks.json").expect(200);
    expect(res.body.keys.length).toBeGreaterThan(0);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
      expect(key.kid).toEqual(expect.any(String));
      expect(key.d).toBeUndefined();
    }
  });
});

describe("admin-created licenses", () => {
  it("shows the key once, validates it, and never shows it again", async () => {
    const created = await h.http
      .post("/admin/licenses")
      .set("Authorization", bearer())
      .send({ name: "Big Studio", email: "big@example.com", edition: "advanced" })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^lic_[0-9A-Za-z]+$/),
      licenseKey: expect.stringMatching(/^lk_[0-9A-Za-z]{32}$/),
      edition: "advanced",
      keyPrefix: created.body.licenseKey.slice(0, 8),
    });
    expect(created.headers.location).toBe(`/admin/licenses/${created.body.id}`);

    const validated = await h.http
      .post("/v1/licenses/validate")
      .send({ licenseKey: created.body.licenseKey })
      .expect(200);
    expect(validated.body.edition).toBe("advanced");

    const shown = await h.http
      .get(`/admin/licenses/${created.body.id}`)
      .set("Authorization", bearer())
      .expect(200);
    expect(shown.body).toMatchObject({
      id: created.body.id,
      keyPrefix: created.body.keyPrefix,
      status: "active",
    });
    expect(JSON.stringify(shown.body)).not.toContain(created.body.licenseKey);
  });
});
