import { createTestRedis, type TestRedis } from "@arena/redis";
import type { AppError } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NextFunction, Request, Response } from "express";
import { tenantRateLimit } from "../src/access/tenant-rate-limit.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis("gateway_rate_test");
});
afterAll(async () => {
  await redis.cleanup();
});

/** Runs the middleware for one request of `tenantId`; resolves with its status (200 or the problem's). */
async function call(limit: ReturnType<typeof tenantRateLimit>, tenantId: string): Promise<number> {
  const req = { principal: { tenantId } } as unknown as Request;
  const res = { setHeader: () => res } as unknown as Response;
  let passed = false;
  try {
    await limit(req, res, (() => {
      passed = true;
    }) as NextFunction);
  } catch (err) {
    return (err as AppError).status;
  }
  return passed ? 200 : 0;
}

const countOf = async (tenantId: string) =>
  Number(await redis.client().get(redis.keys.tenant(tenantId, "requests")));

describe("tenant rate limit", () => {
  it("counts requests far from the limit locally and adds them to Redis at the next flush", async () => {
    const client = redis.client();
    await client.ping();
    const limit = tenantRateLimit({
      redis: client,
      keys: redis.keys,
      points: 1000,
      windowSeconds: 60,
      flushIntervalMs: 50,
    });
    const statuses = [];
    for (let i = 0; i < 50; i++) statuses.push(await call(limit, "far"));
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The first request of the window was counted in Redis; the rest wait for the flush.
    expect(await countOf("far")).toBeLessThan(50);
    await limit.close();
    expect(await countOf("far")).toBe(50);
  });

  it("is exact from half the budget on, over two replicas", async () => {
    const [a, b] = [redis.client(), redis.client()];
    await Promise.all([a.ping(), b.ping()]);
    const options = { keys: redis.keys, points: 10, windowSeconds: 60, flushIntervalMs: 60_000 };
    const [one, two] = [tenantRateLimit({ ...options, redis: a }), tenantRateLimit({ ...options, redis: b })];
    const statuses = [];
    for (let i = 0; i < 14; i++) statuses.push(await call(i % 2 ? two : one, "near"));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    await Promise.all([one.close(), two.close()]);
  });

  it("refuses with 503 when Redis cannot count the request", async () => {
    const { createRedis } = await import("@arena/redis");
    const nowhere = createRedis("redis://127.0.0.1:1", {
      options: { lazyConnect: true, retryStrategy: () => null },
    });
    const limit = tenantRateLimit({ redis: nowhere, keys: redis.keys, points: 1000, windowSeconds: 60 });
    expect(await call(limit, "offline")).toBe(503);
    await limit.close();
    nowhere.disconnect();
  });
});
