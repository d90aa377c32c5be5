import { createTestDatabase, type TestDatabase } from "@arena/database/testing";
import { createLogger, LogCapture, ManualClock as TestClock } from "@arena/service-kit";
import { createLocalJWKSet, type JWTPayload, jwtVerify } from "jose";
import supertest from "supertest";
import { createApp, type LicenseApp } from "../src/app.js";
import { loadLicenseConfig } from "../src/config.js";
import { createDatabaseClient, type Database } from "../src/db.js";
import { createSmtpMailer, type Mailer } from "../src/mail/mailer.js";
import { migrationsDir, schemaPath } from "../src/schema-version.js";
import { keyInMail, type MailCatcher, startMailCatcher } from "./mail-catcher.js";

/** Harness names for the kit's test helpers, so the tests read as before. */
export { LogCapture, TestClock };

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const SIGNING_KEY_SECRET = "test-signing-key-secret-0123456789abcdef";

export interface AppInstance {
  license: LicenseApp;
  db: Database;
  http: ReturnType<typeof supertest>;
  close(): Promise<void>;
}

export interface Harness extends AppInstance {
  database: TestDatabase;
  mail: MailCatcher;
  clock: TestClock;
  logs: LogCapture;
  env: Record<string, string>;
  /** Another app (a replica, or one with other settings) on the same database. */
  startInstance(options?: { env?: Record<string, string>; mailer?: Mailer }): Promise<AppInstance>;
  /** Registers, waits for the mail, and returns the key it carried. */
  registerAndReadKey(email: string, ip?: string): Promise<string>;
  /** Verifies a lease against the JWKS the service publishes now. */
  verifyLease(lease: string): Promise<{ payload: JWTPayload; kid: string | undefined }>;
  close(): Promise<void>;
}

let ipCounter = 0;
/** A fresh client address per call, so rate limits never leak between tests. */
export function nextIp(): string {
  ipCounter++;
  return `198.51.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

export async function createHarness(options: { env?: Record<string, string> } = {}): Promise<Harness> {
  const database = await createTestDatabase({ schemaPath, migrationsDir, prefix: "license_test" });
  const mail = await startMailCatcher();
  const clock = new TestClock();
  const logs = new LogCapture();
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    ADMIN_TOKEN,
    SIGNING_KEY_SECRET,
    SMTP_URL: mail.url,
    LOG_LEVEL: "info",
    PUBLIC_URL: "http://license.test",
    // supertest connects from loopback: trusting it lets tests name a client address per request.
    TRUST_PROXY: "loopback",
    ...options.env,
  };
  const instances: AppInstance[] = [];

  const startInstance = async (extra: { env?: Record<string, string>; mailer?: Mailer } = {}) => {
    const config = loadLicenseConfig({ ...env, ...extra.env });
    const db = createDatabaseClient(config.DATABASE_URL);
    const logger = createLogger({ name: "license", level: config.LOG_LEVEL, destination: logs });
    const mailer = extra.mailer ?? createSmtpMailer(config.SMTP_URL ?? mail.url, config.MAIL_FROM);
    const license = createApp({ db, mailer, clock, config, logger, mailRetryDelayMs: 5 });
    const instance: AppInstance = {
      license,
      db,
      http: supertest(license.app),
      async close() {
        await license.close();
        await db.$disconnect();
      },
    };
    instances.push(instance);
    return instance;
  };

  const main = await startInstance();
  return {
    ...main,
    database,
    mail,
    clock,
    logs,
    env,
    startInstance,
    async registerAndReadKey(email, ip = nextIp()) {
      const before = mail.messages.filter((m) => m.to.includes(email.toLowerCase())).length;
      const res = await main.http
        .post("/v1/registrations")
        .set("X-Forwarded-For", ip)
        .send({ name: "Test Studio", email });
      if (res.status !== 202) throw new Error(`registration answered ${res.status}: ${res.text}`);
      const mails = await mail.waitFor(email, before + 1);
      return keyInMail(mails[mails.length - 1]!);
    },
    async verifyLease(lease) {
      const jwks = await main.http.get("/.well-known/jwks.json").expect(200);
      const { payload, protectedHeader } = await jwtVerify(lease, createLocalJWKSet(jwks.body), {
        issuer: "arena-license",
        audience: "arena-matchmaker",
        algorithms: ["EdDSA"],
        currentDate: clock.now(),
      });
      return { payload, kid: protectedHeader.kid };
    },
    async close() {
      for (const instance of instances) await instance.close().catch(() => {});
      await mail.close();
      await database.drop();
    },
  };
}

export const bearer = (token = ADMIN_TOKEN) => `Bearer ${token}`;
