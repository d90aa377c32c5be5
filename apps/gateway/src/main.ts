import { closeRedis, createRedis } from "@arena/redis";
import { createLogger, readConfigOrExit, serve, stopOnSignals } from "@arena/service-kit";
import { createApp, GATEWAY_REDACTED_KEYS } from "./app.js";
import { systemClock } from "./clock.js";
import { loadGatewayConfig } from "./config.js";
import { createDatabaseClient } from "./db.js";
import { assertSchemaIsCurrent } from "./schema-version.js";

const config = readConfigOrExit("gateway", loadGatewayConfig);
const logger = createLogger({ name: "gateway", level: config.LOG_LEVEL, redactKeys: GATEWAY_REDACTED_KEYS });
const db = createDatabaseClient(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
const redis = createRedis(config, { connectionName: "gateway" });
try {
  await assertSchemaIsCurrent(db);
  const gateway = createApp({ db, redis, clock: systemClock, config, logger });
  const signingKey = await gateway.signingKeys.active();
  logger.info({ kid: signingKey.kid, stats: config.STATS_URL }, "gateway ready");
  const internal =
    gateway.internalApp && config.METRICS_PORT !== undefined
      ? await serve({
          app: gateway.internalApp,
          port: config.METRICS_PORT,
          host: config.METRICS_HOST,
          logger: logger.child({ server: "internal" }),
          lifecycle: gateway.lifecycle,
        })
      : undefined;
  const running = await serve({
    app: gateway.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    lifecycle: gateway.lifecycle,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
    onUpgrade: gateway.websocket.handleUpgrade,
    onShutdown: [() => gateway.websocket.drain(config.SHUTDOWN_TIMEOUT_MS)],
    onClose: [() => internal?.stop(), () => gateway.close(), () => closeRedis(redis), () => db.$disconnect()],
  });
  stopOnSignals(running, logger);
} catch (err) {
  logger.fatal({ err }, `gateway failed to start: ${(err as Error).message}`);
  await db.$disconnect();
  await closeRedis(redis);
  process.exit(1);
}
