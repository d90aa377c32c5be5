import { closeRedis, createRedis, PushFanout, redisKeys } from "@arena/redis";
import { createLogger, readConfigOrExit, serve, stopOnSignals } from "@arena/service-kit";
import { createApp } from "./app.js";
import { systemClock } from "./clock.js";
import { loadStatsConfig } from "./config.js";
import { createDatabaseClient, createPool } from "./db.js";
import { ReadReplica } from "./read-replica.js";
import { assertSchemaIsCurrent } from "./schema-version.js";

const config = readConfigOrExit("stats", loadStatsConfig);
const logger = createLogger({ name: "stats", level: config.LOG_LEVEL });
const pool = createPool(config.DATABASE_URL, config.DATABASE_POOL_SIZE, config.DATABASE_POOL_MODE);
const loopPool = createPool(config.DATABASE_URL, config.MATCHMAKING_POOL_SIZE, config.DATABASE_POOL_MODE);
const db = createDatabaseClient(pool);
const readPool = config.DATABASE_READ_URL
  ? createPool(config.DATABASE_READ_URL, config.DATABASE_POOL_SIZE, config.DATABASE_POOL_MODE)
  : undefined;
const readDb = readPool ? createDatabaseClient(readPool) : undefined;
const replica = new ReadReplica(
  { db, pool },
  readPool && readDb ? { db: readDb, pool: readPool } : undefined,
);
const redis = createRedis(config, { connectionName: "stats" });
try {
  await assertSchemaIsCurrent(db);
  const keys = redisKeys(config.REDIS_KEY_PREFIX);
  const stats = createApp({
    db,
    pool,
    loopPool,
    replica,
    redis,
    keys,
    clock: systemClock,
    config,
    logger,
    pusher: new PushFanout({ redis, keys }),
  });
  stats.outbox.start(config.OUTBOX_INTERVAL_MS);
  stats.loop.start(config.MATCHMAKING_INTERVAL_MS);
  logger.info({ port: config.PORT }, "stats service ready");
  const running = await serve({
    app: stats.app,
    port: config.PORT,
    host: config.HOST,
    logger,
    lifecycle: stats.lifecycle,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
    onClose: [
      () => stats.loop.stop(),
      () => stats.closeClients(),
      () => stats.outbox.stop(),
      () => closeRedis(redis),
      () => db.$disconnect(),
      () => pool.end(),
      () => loopPool.end(),
      async () => {
        await readDb?.$disconnect();
        await readPool?.end();
      },
    ],
  });
  stopOnSignals(running, logger);
} catch (err) {
  logger.fatal({ err }, `stats service failed to start: ${(err as Error).message}`);
  await db.$disconnect();
  await pool.end();
  await loopPool.end();
  await readDb?.$disconnect();
  await readPool?.end();
  await closeRedis(redis);
  process.exit(1);
}
