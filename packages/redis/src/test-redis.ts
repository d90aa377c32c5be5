import { randomBytes } from "node:crypto";
import type { Redis as SingleRedis } from "ioredis";
import {
  closeRedis,
  createRedis,
  DEFAULT_REDIS_URL,
  isCluster,
  type Redis,
  type RedisConnection,
} from "./redis-client.js";
import { type RedisKeys, redisKeys } from "./redis-keys.js";

export interface TestRedis {
  /** The single server's URL (on a cluster, REDIS_URL only carries credentials). */
  url: string;
  /** Where the clients connect: what an app's config would hold (REDIS_URL, REDIS_CLUSTER_NODES). */
  connection: RedisConnection;
  /** Whether this run is on a Redis Cluster (TEST_REDIS_CLUSTER_NODES). */
  cluster: boolean;
  /** Unique to this run, e.g. `stats_test_3fa9c1:`; every key the run writes must start with it. */
  prefix: string;
  keys: RedisKeys;
  /** A new client on the test Redis; closed by `cleanup`. */
  client(): Redis;
  /** Every key under the prefix (on a cluster, from every master). */
  scanKeys(): Promise<string[]>;
  /** Deletes every key under the prefix. */
  flush(): Promise<void>;
  /** Deletes every key under the prefix and closes the clients. */
  cleanup(): Promise<void>;
}

/**
 * A key prefix of its own for one test run on the local Redis (TEST_REDIS_URL), or on the Redis
 * Cluster whose seeds TEST_REDIS_CLUSTER_NODES names (`pnpm test:cluster` starts one), removed
 * afterwards.
 */
export async function createTestRedis(name = "arena_test"): Promise<TestRedis> {
  const url = process.env.TEST_REDIS_URL || DEFAULT_REDIS_URL;
  const nodes = process.env.TEST_REDIS_CLUSTER_NODES?.trim() || undefined;
  const connection: RedisConnection = nodes
    ? { REDIS_URL: url, REDIS_CLUSTER_NODES: nodes }
    : { REDIS_URL: url };
  const prefix = `${name}_${randomBytes(6).toString("hex")}:`;
  const clients: Redis[] = [];
  const admin = createRedis(connection, { connectionName: "test-harness", queueWhileDisconnected: true });
  clients.push(admin);
  await admin.ping();

  // On a cluster every master holds some of the keys: each is scanned, its keys removed one by one
  // (a multi-key UNLINK must stay in one slot).
  // A master a test killed is still listed until the client's next slot refresh; its keys went
  // with it (its replica, now master, is listed too).
  const eachServer = async (work: (server: SingleRedis) => Promise<void>) => {
    const servers: SingleRedis[] = isCluster(admin) ? admin.nodes("master") : [admin];
    for (const server of servers) {
      await work(server).catch((err: unknown) => {
        if (server.status === "ready") throw err;
      });
    }
  };
  const flush = () => eachServer((server) => flushServer(server, prefix, isCluster(admin)));
  const scanKeys = async () => {
    const found: string[] = [];
    await eachServer(async (server) => {
      await scanServer(server, prefix, async (keys) => {
        found.push(...keys);
      });
    });
    return found;
  };

  return {
    url,
    connection,
    cluster: nodes !== undefined,
    prefix,
    keys: redisKeys(prefix),
    client() {
      const client = createRedis(connection, { connectionName: "test", queueWhileDisconnected: true });
      clients.push(client);
      return client;
    },
    scanKeys,
    flush,
    async cleanup() {
      await flush();
      for (const client of clients) await closeRedis(client);
    },
  };
}

async function scanServer(
  server: SingleRedis,
  prefix: string,
  each: (keys: string[]) => Promise<void>,
): Promise<void> {
  let cursor = "0";
  do {
    const [next, found] = await server.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    if (found.length > 0) await each(found);
  } while (cursor !== "0");
}

async function flushServer(server: SingleRedis, prefix: string, oneByOne: boolean): Promise<void> {
  await scanServer(server, prefix, async (found) => {
    if (!oneByOne) {
      await server.unlink(...found);
      return;
    }
    const pipeline = server.pipeline();
    for (const key of found) pipeline.unlink(key);
    await pipeline.exec();
  });
}
