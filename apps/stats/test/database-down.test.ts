import { createServer } from "node:net";
import { closeRedis, createRedis } from "@arena/redis";
import { createTestRedis, type TestRedis } from "@arena/redis/testing";
import { createLogger, ManualClock } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import supertest from "supertest";
import { createApp, type StatsApp } from "../src/app.js";
import { loadStatsConfig } from "../src/config.js";
import { createDatabaseClient, createPool } from "../src/db.js";

/**
 * PostgreSQL down (stopped, restarting, unreachable): the real driver's and Prisma's errors are a
 * 503 with Retry-After, and /readyz says not ready. They were 500 INTERNAL before (found by
 * e2e/test/faults.test.ts restarting the database under the running service).
 */
const SERVICE_TOKEN = "test-service-token-0123456789";
let testRedis: TestRedis;
let stats: StatsApp;
let close: () => Promise<void>;

beforeAll(async () => {
  // A port nothing listens on: every connection attempt is refused, as while PostgreSQL restarts.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  const pool = createPool(`postgresql://postgres@127.0.0.1:${port}/arena_down`, 2);
  const db = createDatabaseClient(pool);
  testRedis = await createTestRedis("stats_down");
  const redis = createRedis(testRedis.url, { connectionName: "stats-down-test" });
  stats = createApp({
    db,
    pool,
    redis,
    keys: testRedis.keys,
    clock: new ManualClock(),
    config: loadStatsConfig({ SERVICE_TOKEN, REBUILD_WAIT_MS: "1000" }),
    logger: createLogger({ name: "stats", level: "silent" }),
    matchmaker: { match: async () => ({ matchSuggestions: [], unmatchedTickets: [] }) as never },
  });
  close = async () => {
    await closeRedis(redis);
    await db.$disconnect();
    await pool.end();
    await testRedis.cleanup();
  };
});
afterAll(async () => close?.());

const as = (t: supertest.Test) =>
  t.set("authorization", `Bearer ${SERVICE_TOKEN}`).set("x-arena-tenant", "t1").set("x-arena-role", "admin");

describe("stats with its database unreachable", () => {
  it.each([
    ["a Prisma query (the game's configuration)", "/games/duel/players"],
    ["a raw Prisma query (the current season)", "/players/p1"],
  ])("answers %s with 503 and Retry-After", async (_name, path) => {
    const res = await as(supertest(stats.app).get(path));
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
    expect(res.headers["retry-after"]).toBe("2");
  });

  it("answers a write on the pool (a queue join) with 503", async () => {
    const res = await as(supertest(stats.app).post("/games/duel/players")).send({
      players: [{ playerId: "p1" }],
    });
    expect(res.status).toBe(503);
  });

  it("is not ready", async () => {
    const res = await supertest(stats.app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.checks.database).toMatch(/failing/);
  });
});

describe("a connection that breaks while a transaction holds it", () => {
  it("fails that transaction's next query instead of crashing the process, and the pool recovers", async () => {
    const pool = createPool("postgresql://postgres@127.0.0.1:5432/postgres", 2);
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      const client = await pool.connect();
      await client.query("BEGIN");
      const { pid } = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!;
      // What a PostgreSQL restart does to every open connection.
      await pool.query("SELECT pg_terminate_backend($1)", [pid]);
      await new Promise((r) => setTimeout(r, 200));
      await expect(client.query("SELECT 1")).rejects.toThrow();
      client.release();
      expect(uncaught).toEqual([]);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    } finally {
      process.off("uncaughtException", onUncaught);
      await pool.end();
    }
  });
});
