import { Redis, type RedisOptions } from "ioredis";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** An app's Redis settings, for its config schema: the server, and the start of every key. */
export const redisConfigProperties = {
  REDIS_URL: { type: "string", pattern: "^rediss?://", default: DEFAULT_REDIS_URL },
  REDIS_KEY_PREFIX: {
    type: "string",
    minLength: 1,
    default: "arena:",
    description: "Start of every Redis key, so deployments (or test runs) can share one Redis",
  },
} as const;

export interface CreateRedisOptions {
  /** Name shown in `CLIENT LIST`, e.g. the app's name; helps an operator find a connection. */
  connectionName?: string;
  /**
   * Fail a command at once while disconnected instead of queueing it (the default). A service
   * answers 503 rather than holding requests; background workers may prefer queueing.
   */
  queueWhileDisconnected?: boolean;
  /** Extra ioredis options (tests use `lazyConnect`). */
  options?: RedisOptions;
}

/**
 * One ioredis client from `REDIS_URL`, with the settings every service wants: bounded retries per
 * command, reconnection with capped back-off, and no unbounded offline queue.
 */
export function createRedis(url: string = DEFAULT_REDIS_URL, opts: CreateRedisOptions = {}): Redis {
  const queue = opts.queueWhileDisconnected ?? false;
  const client = new Redis(url, {
    connectionName: opts.connectionName,
    // A command never waits forever for a reconnect: it fails after a few attempts.
    maxRetriesPerRequest: queue ? 3 : 1,
    enableOfflineQueue: queue,
    connectTimeout: 2_000,
    // 50, 100, ... ms, capped at 2 s: reconnects soon after Redis comes back.
    retryStrategy: (attempt) => Math.min(attempt * 50, 2_000),
    ...opts.options,
  });
  // ioredis emits "error" on every failed reconnect; without a listener Node would crash. Commands
  // still reject, and readiness reports the state.
  client.on("error", () => {});
  return client;
}

/** A readiness check (service-kit `ReadinessCheck`) that pings Redis. */
export function redisReadiness(client: Redis, name = "redis") {
  return {
    name,
    async check() {
      if (client.status !== "ready") throw new Error(`connection ${client.status}`);
      const answer = await client.ping();
      if (answer !== "PONG") throw new Error(`unexpected PING answer ${answer}`);
    },
  };
}

/** Closes a client: QUIT when connected (lets in-flight commands finish), else disconnects. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === "end") return;
  if (client.status === "ready") {
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}
