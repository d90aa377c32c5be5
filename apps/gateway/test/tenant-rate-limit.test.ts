import type { Redis } from "@arena/redis";
import { createTestRedis, type TestRedis } from "@arena/redis/testing";
import { type AppError, ManualClock, systemClock } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NextFunction, Request, Response } from "express";
import { tenantRateLimit } from "../src/access/tenant-rate-limit.js";

let redis: TestRedis;
/** Connected once: a new client per read (on a cluster, slot discovery first) could outlast a flush. */
let reader: Redis;
beforeAll(async () => {
  redis = await createTestRedis("gateway_rate_test");
  reader = redis.client();
  await reader.ping();
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

const countOf = async (tenantId: string) => Number(await reader.get(redis.keys.tenant(tenantId, "requests")));

/** A limit of 1000 requests a minute on a ready client: far below half of it, requests count locally. */
async function localLimit(flushIntervalMs: number) {
  const client = redis.client();
  await client.ping();
  return tenantRateLimit({
    redis: client,
    keys: redis.keys,
    points: 1000,
    windowSeconds: 60,
    flushIntervalMs,
    clock: systemClock,
  });
}

describe("tenant rate limit", () => {
  it("counts requests far from the limit locally and adds them to Redis at the next flush", async () => {
    const limit = await localLimit(50);
    const statuses = [];
    for (let i = 0; i < 50; i++) statuses.push(await call(limit, "far"));
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The first request of the window was counted in Redis; the rest wait for the flush.
    expect(await countOf("far")).toBeLessThan(50);
    await limit.close();
    expect(await countOf("far")).toBe(50);
  });

  it("adds requests counted locally once, even when two flushes overlap (the timer's and close's)", async () => {
    const limit = await localLimit(60_000);
    for (let i = 0; i < 50; i++) expect(await call(limit, "overlap")).toBe(200);
    // Both flushes start before either's Redis call answers.
    await Promise.all([limit.close(), limit.close()]);
    expect(await countOf("overlap")).toBe(50);
  });

  it("is exact from half the budget on, over two replicas", async () => {
    const [a, b] = [redis.client(), redis.client()];
    await Promise.all([a.ping(), b.ping()]);
    const options = {
      keys: redis.keys,
      points: 10,
      windowSeconds: 60,
      flushIntervalMs: 60_000,
      clock: systemClock,
    };
    const [one, two] = [tenantRateLimit({ ...options, redis: a }), tenantRateLimit({ ...options, redis: b })];
    const statuses = [];
    for (let i = 0; i < 14; i++) statuses.push(await call(i % 2 ? two : one, "near"));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    await Promise.all([one.close(), two.close()]);
  });

  it("ends its view of a window by the injected clock: the next request is counted in Redis at once", async () => {
    const client = redis.client();
    await client.ping();
    const clock = new ManualClock();
    const options = { keys: redis.keys, points: 1000, windowSeconds: 60, flushIntervalMs: 60_000 };
    const limit = tenantRateLimit({ ...options, redis: client, clock });
    expect(await call(limit, "clocked")).toBe(200);
    for (let i = 0; i < 4; i++) expect(await call(limit, "clocked")).toBe(200);
    // The window's first request went to Redis; the next four are counted here until a flush.
    expect(await countOf("clocked")).toBe(1);
    clock.advance(61_000);
    // The window ended by the clock: its local counts go with it and the request goes to Redis.
    expect(await call(limit, "clocked")).toBe(200);
    expect(await countOf("clocked")).toBe(2);
    await limit.close();
  });

  it("refuses with 503 when Redis cannot count the request", async () => {
    const { createRedis } = await import("@arena/redis");
    const nowhere = createRedis("redis://127.0.0.1:1", {
      options: { lazyConnect: true, retryStrategy: () => null },
    });
    const limit = tenantRateLimit({
      redis: nowhere,
      keys: redis.keys,
      points: 1000,
      windowSeconds: 60,
      clock: systemClock,
    });
    expect(await call(limit, "offline")).toBe(503);
    await limit.close();
    nowhere.disconnect();
  });
});
