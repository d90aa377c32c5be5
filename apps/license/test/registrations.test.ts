import { validateRegistrationAccepted } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Mailer } from "../src/mail/mailer.js";
import { createHarness, type Harness, nextIp } from "./harness.js";
import { keyInMail } from "./mail-catcher.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    env: {
      REGISTRATION_LIMIT_PER_EMAIL: "3",
      REGISTRATION_LIMIT_PER_IP: "5",
      REGISTRATION_WINDOW_SECONDS: "3600",
    },
  });
});
afterAll(async () => {
  await h?.close();
});

const validate = (licenseKey: string) => h.http.post("/v1/licenses/validate").send({ licenseKey });

describe("registering again with a known e-mail address", () => {
  it("answers exactly as for a new address", async () => {
    const ip = nextIp();
    const first = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", ip)
      .send({ name: "A", email: "same@example.com" });
    const second = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", ip)
      .send({ name: "A", email: "same@example.com" });
    expect(first.status).toBe(202);
    expect(validateRegistrationAccepted(first.body)).toBe(true);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
  });

  it("mails a new key for the same license and keeps the old key working until the new one is used", async () => {
    const email = "rotate@example.com";
    const oldKey = await h.registerAndReadKey(email);
    const oldLease = await validate(oldKey).expect(200);

    const newKey = await h.registerAndReadKey("Rotate@Example.com");
    expect(newKey).not.toBe(oldKey);
    const [, reissueMail] = await h.mail.waitFor(email, 2);
    expect(reissueMail!.text).toContain("keeps working until this one is used");

    // Someone who re-registered the address cannot break the running installation.
    await validate(oldKey).expect(200);

    const newLease = await validate(newKey).expect(200);
    const sub = async (lease: string) => (await h.verifyLease(lease)).payload.sub;
    expect(await sub(newLease.body.lease)).toBe(await sub(oldLease.body.lease));

    await validate(oldKey).expect(403);
    await validate(newKey).expect(200);
    expect(await h.db.license.count({ where: { emailNormalized: email } })).toBe(1);
  });

  it("stops an earlier unused re-sent key when a newer one is sent", async () => {
    const email = "twice@example.com";
    const original = await h.registerAndReadKey(email);
    const firstResend = await h.registerAndReadKey(email);
    const secondResend = await h.registerAndReadKey(email);
    await validate(firstResend).expect(403);
    await validate(original).expect(200);
    await validate(secondResend).expect(200);
    await validate(original).expect(403);
  });

  it("creates a single license when the same new address registers twice at once", async () => {
    const email = "race@example.com";
    const answers = await Promise.all(
      [1, 2].map(() =>
        h.http.post("/v1/registrations").set("X-Forwarded-For", nextIp()).send({ name: "R", email }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    await h.mail.waitFor(email, 2);
    expect(await h.db.license.count({ where: { emailNormalized: email } })).toBe(1);
  });

  it("sends nothing to an address whose license was revoked, yet answers 202", async () => {
    const email = "banned@example.com";
    await h.registerAndReadKey(email);
    const row = await h.db.license.findFirstOrThrow({ where: { emailNormalized: email } });
    await h.http
      .delete(`/admin/licenses/${row.id}`)
      .set("Authorization", `Bearer ${h.env.ADMIN_TOKEN}`)
      .expect(204);

    const res = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "B", email })
      .expect(202);
    expect(validateRegistrationAccepted(res.body)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.mail.messages.filter((m) => m.to.includes(email))).toHaveLength(1);
    expect(await h.db.license.count({ where: { emailNormalized: email } })).toBe(1);
  });
});

describe("registration rate limits", () => {
  it("refuses a fourth registration of one address within the hour with 429 and Retry-After", async () => {
    const email = "limited@example.com";
    for (let i = 0; i < 3; i++) {
      await h.http
        .post("/v1/registrations")
        .set("X-Forwarded-For", nextIp())
        .send({ name: "L", email })
        .expect(202);
    }
    const limited = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "L", email })
      .expect(429);
    expect(limited.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(limited.body.code).toBe("RATE_LIMITED");
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    await h.mail.waitFor(email, 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.mail.messages.filter((m) => m.to.includes(email))).toHaveLength(3);
  });

  it("refuses a sixth registration from one client address within the hour", async () => {
    const ip = nextIp();
    for (let i = 0; i < 5; i++) {
      await h.http
        .post("/v1/registrations")
        .set("X-Forwarded-For", ip)
        .send({ name: "I", email: `ip-${i}@example.com` })
        .expect(202);
    }
    const limited = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", ip)
      .send({ name: "I", email: "ip-5@example.com" })
      .expect(429);
    expect(limited.headers["retry-after"]).toMatch(/^\d+$/);
    await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "I", email: "ip-5@example.com" })
      .expect(202);
  });

  it("counts the peer's address by default, however X-Forwarded-For rotates", async () => {
    // TRUST_PROXY empty counts as unset: the default trusts no proxy, not even on loopback.
    const direct = await h.startInstance({ env: { TRUST_PROXY: "" } });
    const register = (i: number) =>
      direct.http
        .post("/v1/registrations")
        .set("X-Forwarded-For", nextIp())
        .send({ name: "X", email: `rotating-${i}@example.com` });
    for (let i = 0; i < 5; i++) await register(i).expect(202);
    const limited = await register(5).expect(429);
    expect(limited.body.detail).toBe("Too many registrations from this address; try again later");
  });

  it("accepts the address again once the window has passed", async () => {
    const email = "window@example.com";
    for (let i = 0; i < 3; i++) {
      await h.http.post("/v1/registrations").set("X-Forwarded-For", nextIp()).send({ name: "W", email });
    }
    await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "W", email })
      .expect(429);
    h.clock.advance(3600 * 1000);
    await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "W", email })
      .expect(202);
  });

  it("shares its counters between replicas through PostgreSQL", async () => {
    const replica = await h.startInstance();
    const email = "replicas@example.com";
    for (const app of [h, replica, h]) {
      await app.http
        .post("/v1/registrations")
        .set("X-Forwarded-For", nextIp())
        .send({ name: "R", email })
        .expect(202);
    }
    await replica.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "R", email })
      .expect(429);
  });
});

describe("mail delivery", () => {
  it("keeps the registration and answers 202 when the mail server is down, and counts the failure", async () => {
    let attempts = 0;
    const broken: Mailer = {
      async send() {
        attempts++;
        throw new Error("connect ECONNREFUSED");
      },
      close() {},
    };
    const instance = await h.startInstance({ mailer: broken, env: { MAIL_SEND_ATTEMPTS: "3" } });
    const email = "nomail@example.com";
    await instance.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "N", email })
      .expect(202);
    await instance.license.mailQueue.drain();
    expect(attempts).toBe(3);
    expect(await h.db.license.count({ where: { emailNormalized: email } })).toBe(1);
    const metrics = await instance.http.get("/metrics").expect(200);
    expect(metrics.text).toMatch(/license_mails_total\{[^}]*outcome="failed"[^}]*\} 1/);
    expect(h.logs.text).toContain("mail send failed");

    // The person registers again once mail works, and gets a key for the license that was kept.
    const key = await h.registerAndReadKey(email);
    await validate(key).expect(200);
  });

  it("answers before the mail is sent", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Mailer = {
      async send() {
        await gate;
      },
      close() {},
    };
    const instance = await h.startInstance({ mailer: slow });
    await instance.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .send({ name: "S", email: "slow@example.com" })
      .expect(202);
    release();
    await instance.license.mailQueue.drain();
  });

  it("writes the key into the mail and nowhere in the log", async () => {
    const key = await h.registerAndReadKey("logs@example.com");
    const [mail] = await h.mail.waitFor("logs@example.com");
    expect(keyInMail(mail!)).toBe(key);
    expect(h.logs.text).toContain("registration accepted");
    expect(h.logs.text).not.toMatch(/lk_[0-9A-Za-z]{32}/);
    expect(h.logs.text).not.toContain("logs@example.com");
  });
});
