import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { closeRedis, createRedis, DEFAULT_REDIS_URL } from "./redis-client.js";
import { type RedisKeys, redisKeys } from "./redis-keys.js";

export interface TestRedis {
  url: string;
  /** Unique to this run, e.g. `stats_test_3fa9c1:`; every key the run writes must start with it. */
  prefix: string;
  keys: RedisKeys;
  /** A new client on the test Redis; closed by `cleanup`. */
  client(): Redis;
  /** Deletes every key under the prefix. */
  flush(): Promise<void>;
  /** Deletes every key under the prefix and closes the clients. */
  cleanup(): Promise<void>;
}

/** A key prefix of its own for one test run on the local Redis, removed afterwards. */
export async function createTestRedis(name = "arena_test"): Promise<TestRedis> {
  const url = process.env.TEST_REDIS_URL || DEFAULT_REDIS_URL;
  const prefix = `${name}_${randomBytes(6).toString("hex")}:`;
  const clients: Redis[] = [];
  const admin = createRedis(url, { connectionName: "test-harness", queueWhileDisconnected: true });
  clients.push(admin);
  await admin.ping();

  const flush = async () => {
    let cursor = "0";
    do {
      const [next, found] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (found.length > 0) await admin.unlink(...found);
    } while (cursor !== "0");
  };

  return {
    url,
    prefix,
    keys: redisKeys(prefix),
    client() {
      const client = createRedis(url, { connectionName: "test", queueWhileDisconnected: true });
      clients.push(client);
      return client;
    },
    flush,
    async cleanup() {
      await flush();
      for (const client of clients) await closeRedis(client);
    },
  };
}
