import { Counter, createServiceApp, type Logger, type ServiceApp } from "@arena/service-kit";
import { jwksRoutes, SigningKeys } from "@arena/signing-keys";
import { adminRoutes } from "./admin/admin-routes.js";
import type { Clock } from "./clock.js";
import type { LicenseConfig } from "./config.js";
import { type Database, databaseReadiness } from "./db.js";
import { LicenseStore } from "./licenses/license-store.js";
import { validationRoutes } from "./licenses/validation-routes.js";
import { MailQueue } from "./mail/mail-queue.js";
import type { Mailer } from "./mail/mailer.js";
import { RateLimiter } from "./registrations/rate-limiter.js";
import { registrationRoutes } from "./registrations/registration-routes.js";
import {
  LEASE_SIGNING_ALGORITHM,
  LICENSE_SEALING_SALT,
  licenseSigningKeyStore,
} from "./signing/signing-key-store.js";

export interface LicenseAppDeps {
  db: Database;
  mailer: Mailer;
  clock: Clock;
  config: LicenseConfig;
  logger: Logger;
  /** First delay between mail retries (tests shorten it). */
  mailRetryDelayMs?: number;
}

export interface LicenseApp extends ServiceApp {
  licenses: LicenseStore;
  signingKeys: SigningKeys;
  mailQueue: MailQueue;
  /** After the last request: sends what is still queued, then closes the mail transport. */
  close(): Promise<void>;
}

export function createApp(deps: LicenseAppDeps): LicenseApp {
  const { db, mailer, clock, config, logger } = deps;
  const licenses = new LicenseStore(db, clock);
  const signingKeys = new SigningKeys({
    store: licenseSigningKeyStore(db),
    clock,
    logger,
    algorithm: LEASE_SIGNING_ALGORITHM,
    secret: config.SIGNING_KEY_SECRET,
    sealingSalt: LICENSE_SEALING_SALT,
    rotateAfterMs: config.SIGNING_KEY_ROTATION_DAYS * 86_400_000,
    signedTtlMs: config.LEASE_TTL_SECONDS * 1000,
  });
  const rateLimiter = new RateLimiter(db, clock, config.REGISTRATION_WINDOW_SECONDS * 1000);
  // Registered with the app's registry below, once createServiceApp has made it.
  const mailsSent = new Counter({
    name: "license_mails_total",
    help: "License mails by outcome (sent, or failed after every retry)",
    labelNames: ["outcome"] as const,
    registers: [],
  });
  const mailQueue = new MailQueue({
    mailer,
    logger,
    attempts: config.MAIL_SEND_ATTEMPTS,
    baseDelayMs: deps.mailRetryDelayMs ?? 1_000,
    sent: mailsSent,
  });

  const service = createServiceApp({
    name: "license",
    logger,
    bodyLimit: "16kb",
    trustProxy: config.TRUST_PROXY,
    readiness: [databaseReadiness(db)],
    routes: (app) => {
      app.use(jwksRoutes(signingKeys));
      app.use(validationRoutes({ licenses, signingKeys, clock, leaseTtlSeconds: config.LEASE_TTL_SECONDS }));
      app.use(
        registrationRoutes({
          licenses,
          mailQueue,
          rateLimiter,
          limits: { perEmail: config.REGISTRATION_LIMIT_PER_EMAIL, perIp: config.REGISTRATION_LIMIT_PER_IP },
          publicUrl: config.PUBLIC_URL,
        }),
      );
      app.use("/admin", adminRoutes({ adminToken: config.ADMIN_TOKEN, licenses, signingKeys }));
    },
  });
  service.metrics.registry.registerMetric(mailsSent);
  return {
    ...service,
    licenses,
    signingKeys,
    mailQueue,
    async close() {
      await mailQueue.drain();
      mailer.close();
    },
  };
}
