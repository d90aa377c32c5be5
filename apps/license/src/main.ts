import { createLogger, readConfigOrExit, serve, stopOnSignals } from "@arena/service-kit";
import { createApp } from "./app.js";
import { systemClock } from "./clock.js";
import { loadLicenseConfig } from "./config.js";
import { createDatabaseClient } from "./db.js";
import { createFileMailer, createSmtpMailer } from "./mail/mailer.js";
import { assertSchemaIsCurrent } from "./schema-version.js";

const config = readConfigOrExit("license", loadLicenseConfig);
const logger = createLogger({ name: "license", level: config.LOG_LEVEL });
const db = createDatabaseClient(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
try {
  await assertSchemaIsCurrent(db);
  const mailer = config.SMTP_URL
    ? createSmtpMailer(config.SMTP_URL, config.MAIL_FROM)
    : createFileMailer(config.MAIL_DIR, config.MAIL_FROM, logger);
  const license = createApp({ db, mailer, clock: systemClock, config, logger });
  const signingKey = await license.signingKeys.active();
  logger.info(
    { kid: signingKey.kid, mail: config.SMTP_URL ? "smtp" : `files in ${config.MAIL_DIR}` },
    "license service ready",
  );
  const running = await serve({
    app: license.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    lifecycle: license.lifecycle,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
    onClose: [() => license.close(), () => db.$disconnect()],
  });
  stopOnSignals(running, logger);
} catch (err) {
  logger.fatal({ err }, `license service failed to start: ${(err as Error).message}`);
  await db.$disconnect();
  process.exit(1);
}
