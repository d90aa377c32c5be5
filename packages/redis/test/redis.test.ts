import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { closeRedis, createRedis, redisKeys, redisReadiness } from "../src/index.js";
import { createTestRedis, type TestRedis } from "../src/testing.js";

describe("redisKeys", () => {
  const keys = redisKeys("arena:");

  it("puts a tenant's game in one hash tag, so its keys share a cluster slot", () => {
    expect(keys.game("ten_1", "ranked-2v2", "leaderboard", "S1")).toBe(
      "arena:{ten_1:ranked-2v2}:leaderboard:S1",
    );
  });

  it("escapes braces, colons and spaces in ids so one id can never move the hash tag", () => {
    const key = keys.game("a}b", "c:d e");
    expect(key).toBe("arena:{a%7db:c%3ad%20e}");
    expect(key.match(/[{}]/g)).toEqual(["{", "}"]);
    expect(keys.game("a:b", "c")).not.toBe(keys.game("a", "b:c"));
  });

  it("names tenant and deployment keys", () => {
    expect(keys.tenant("ten_1", "subscribers")).toBe("arena:{ten_1}:subscribers");
    expect(keys.global("lock", "matchmaking")).toBe("arena:lock:matchmaking");
  });
});

describe("test Redis harness", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await createTestRedis("redis_pkg_test");
  });
  afterAll(async () => {
    await redis.cleanup();
  });

  it("gives each run its own prefix and removes only its own keys", async () => {
    const other = await createTestRedis("redis_pkg_test");
    expect(other.prefix).not.toBe(redis.prefix);
    const client = redis.client();
    await client.set(`${redis.prefix}a`, "1");
    await client.set(`${other.prefix}a`, "2");
    await other.cleanup();
    expect(await client.get(`${redis.prefix}a`)).toBe("1");
    expect(await client.get(`${other.prefix}a`)).toBeNull();
  });

  it("reports readiness when Redis answers and a clear failure when it does not", async () => {
    const client = redis.client();
    await client.ping();
    await expect(Promise.resolve(redisReadiness(client).check())).resolves.toBeUndefined();

    const nowhere = createRedis("redis://127.0.0.1:1", {
      options: { lazyConnect: true, retryStrategy: () => null },
    });
    await expect(Promise.resolve(redisReadiness(nowhere).check())).rejects.toThrow(/connection/);
    await expect(nowhere.get("x")).rejects.toThrow();
    await closeRedis(nowhere);
  });
});
