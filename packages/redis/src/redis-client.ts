import { Cluster, type ClusterOptions, type RedisOptions, Redis as SingleRedis } from "ioredis";

/**
 * The client every app holds: one Redis server, or a Redis Cluster (`REDIS_CLUSTER_NODES`). Both
 * speak the same commands; what differs (pub/sub, scripts, duplicating a connection) goes through
 * this package's helpers (`listenOn`, `publishOn`, `RedisScript`), which pick the right form.
 */
export type Redis = SingleRedis | Cluster;

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** `host:port` seeds separated by commas; IPv6 hosts in brackets (`[::1]:7000`). */
const CLUSTER_NODES_PATTERN = "^\\s*[^,\\s]+:[0-9]{1,5}\\s*(,\\s*[^,\\s]+:[0-9]{1,5}\\s*)*$";

/** An app's Redis settings, for its config schema: the server or cluster, and the start of every key. */
export const redisConfigProperties = {
  REDIS_URL: { type: "string", pattern: "^rediss?://", default: DEFAULT_REDIS_URL },
  REDIS_CLUSTER_NODES: {
    type: "string",
    pattern: CLUSTER_NODES_PATTERN,
    description:
      "Redis Cluster seed nodes (host:port,host:port,...); when set the apps use the cluster, with the user, password and TLS of REDIS_URL",
  },
  REDIS_KEY_PREFIX: {
    type: "string",
    minLength: 1,
    default: "arena:",
    description: "Start of every Redis key, so deployments (or test runs) can share one Redis",
  },
} as const;

/** Where to connect: the config's two variables (a plain URL string means one server). */
export interface RedisConnection {
  REDIS_URL?: string | undefined;
  REDIS_CLUSTER_NODES?: string | undefined;
}

export interface CreateRedisOptions {
  /** Name shown in `CLIENT LIST`, e.g. the app's name; helps an operator find a connection. */
  connectionName?: string;
  /**
   * Fail a command at once while disconnected instead of queueing it (the default). A service
   * answers 503 rather than holding requests; background workers may prefer queueing.
   */
  queueWhileDisconnected?: boolean;
  /** Extra ioredis options for each connection (tests use `lazyConnect`). */
  options?: RedisOptions;
}

/** The seeds of `REDIS_CLUSTER_NODES`, or undefined for one server. */
export function clusterSeeds(nodes: string | undefined): Array<{ host: string; port: number }> | undefined {
  const list = (nodes ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (list.length === 0) return undefined;
  return list.map((node) => {
    const at = node.lastIndexOf(":");
    const port = Number(node.slice(at + 1));
    if (at <= 0 || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`REDIS_CLUSTER_NODES: "${node}" is not host:port`);
    }
    return { host: node.slice(0, at).replace(/^\[(.*)\]$/, "$1"), port };
  });
}

/**
 * One ioredis client, single-server or cluster as the connection says, with the settings every
 * service wants: bounded retries per command, reconnection with capped back-off, and no unbounded
 * offline queue.
 */
export function createRedis(
  connection: RedisConnection | string = DEFAULT_REDIS_URL,
  opts: CreateRedisOptions = {},
): Redis {
  const target = typeof connection === "string" ? { REDIS_URL: connection } : connection;
  const url = target.REDIS_URL || DEFAULT_REDIS_URL;
  const queue = opts.queueWhileDisconnected ?? false;
  const common: RedisOptions = {
    connectionName: opts.connectionName,
    // A command never waits forever for a reconnect: it fails after a few attempts.
    maxRetriesPerRequest: queue ? 3 : 1,
    enableOfflineQueue: queue,
    connectTimeout: 2_000,
    // 50, 100, ... ms, capped at 2 s: reconnects soon after Redis comes back.
    retryStrategy: (attempt) => Math.min(attempt * 50, 2_000),
    ...opts.options,
  };
  const seeds = clusterSeeds(target.REDIS_CLUSTER_NODES);
  const client: Redis = seeds
    ? new Cluster(seeds, clusterOptions(url, common))
    : new SingleRedis(url, common);
  // ioredis emits "error" on every failed reconnect; without a listener Node would crash. Commands
  // still reject, and readiness reports the state.
  client.on("error", () => {});
  return client;
}

/** Cluster settings: the node connections as one server's, credentials and TLS from REDIS_URL. */
function clusterOptions(url: string, common: RedisOptions): ClusterOptions {
  const parsed = new URL(url);
  const { enableOfflineQueue, lazyConnect, ...perNode } = common;
  return {
    enableOfflineQueue,
    lazyConnect,
    redisOptions: {
      ...perNode,
      username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      tls: parsed.protocol === "rediss:" ? {} : undefined,
    },
    // Pub/sub goes to the shard that owns the channel (SSUBSCRIBE/SPUBLISH), not to every node.
    shardedSubscribers: true,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // While a replica takes over a failed master (about the node timeout), commands to its slots
    // are retried a few times, then fail: the callers' own retries (the outbox, refreshes) follow.
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2_000,
    // Read the slot map every 2 s: a subscriber connection sends no command that would be
    // redirected (MOVED), so only this tells it that a failover moved its channels' shard.
    slotsRefreshInterval: 2_000,
    maxRedirections: 16,
  };
}

/** Whether the client talks to a Redis Cluster. */
export function isCluster(client: Redis): client is Cluster {
  return client instanceof Cluster;
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
