import { createLicenseClient } from "@arena/license-client";
import { createLogger, readConfigOrExit, serve, stopOnSignals } from "@arena/service-kit";
import { createWorkerSpanScanner } from "./answer/span-scanner.js";
import { createApp } from "./app.js";
import { loadMatchmakerConfig } from "./config.js";

async function main(): Promise<void> {
  const config = readConfigOrExit("matchmaker", loadMatchmakerConfig);
  const logger = createLogger({ name: "matchmaker", level: config.LOG_LEVEL });

  const license = createLicenseClient({
    licenseKey: config.LICENSE_KEY,
    licenseUrl: config.LICENSE_URL,
    refreshIntervalMs: config.LICENSE_REFRESH_SECONDS * 1000,
    gracePeriodMs: config.LICENSE_GRACE_SECONDS * 1000,
    logger,
  });
  const state = await license.start();
  // A rejected key does not stop the process: /readyz says why and matchmaking answers 403, so an
  // operator sees the reason in their orchestrator instead of a crash loop.
  logger.info({ status: state.status, edition: state.edition, reason: state.reason }, "license checked");

  // Ticket spans are found on a second core while the request thread validates and matches.
  const spanScanner = createWorkerSpanScanner();
  const { app, lifecycle, warmUp } = createApp({
    config,
    license,
    logger,
    spanScanner,
    ...(config.WARM_UP_TICKETS > 0 && { warmUp: { tickets: config.WARM_UP_TICKETS } }),
  });
  const running = await serve({
    app,
    port: config.PORT,
    host: config.HOST,
    logger,
    lifecycle,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
    onClose: [() => license.stop(), () => spanScanner.close()],
  });
  warmUp?.done.then(() => logger.info("warm-up done: ready for traffic"));
  stopOnSignals(running, logger);
}

main().catch((err: unknown) => {
  console.error("matchmaker failed to start:", err);
  process.exit(1);
});
