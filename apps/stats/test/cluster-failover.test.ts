import { startTestCluster, type TestCluster } from "@arena/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { boardKeys } from "../src/leaderboards/leaderboard-scripts.js";
import { encodeScore } from "../src/leaderboards/score-encoding.js";
import { createHarness, gameConfig, type Harness, playMatch } from "./harness.js";

/**
 * Stats on a real Redis Cluster (3 masters, 3 replicas) whose master holding a board is SIGKILLed
 * while completions are being recorded: every completion answers 200, the writes that reached no
 * master wait in the outbox (or are retried by the client once the slot moved), and once a replica
 * has taken over the board is exactly what PostgreSQL holds, with the same client still in use (it
 * follows the new slot owner by itself).
 */
const T = "failover";
const GAME = "ranked";
let cluster: TestCluster;
let h: Harness;

beforeAll(async () => {
  cluster = await startTestCluster();
  // createTestRedis (inside the harness) reads this: the run's keys go to the cluster.
  const before = process.env.TEST_REDIS_CLUSTER_NODES;
  process.env.TEST_REDIS_CLUSTER_NODES = cluster.seeds;
  try {
    h = await createHarness();
  } finally {
    if (before === undefined) delete process.env.TEST_REDIS_CLUSTER_NODES;
    else process.env.TEST_REDIS_CLUSTER_NODES = before;
  }
  await h.as(T).put(`/games/${GAME}`, gameConfig(2, 1)).expect(200);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await cluster?.stop();
});

/** The board as Redis holds it (member → score) and as PostgreSQL says it must be. */
async function boardsOf() {
  const k = boardKeys(h.testRedis.keys, { tenantId: T, gameId: GAME, season: 1 });
  const flat = await h.redis.zrange(k.board, 0, -1, "WITHSCORES");
  const redis = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 2) redis.set(flat[i]!, Number(flat[i + 1]));
  const rows = await h.db.playerStat.findMany({ where: { tenantId: T, gameId: GAME, season: 1 } });
  const postgres = new Map(rows.map((r) => [r.playerId, encodeScore(r.rankingPoints, r.pointsChangedAt)]));
  return { redis, postgres };
}

describe("stats on a Redis Cluster when a master fails", () => {
  it("loses no result and ends with the board identical to PostgreSQL", async () => {
    const k = boardKeys(h.testRedis.keys, { tenantId: T, gameId: GAME, season: 1 });
    const master = await cluster.masterOf(k.board);
    const replica = await cluster.replicaOf(master);
    let n = 0;
    const play = async () => {
      n += 1;
      h.clock.advance(1000);
      await playMatch(h, T, GAME, [[`w${n % 7}`], [`l${n}`]]);
    };
    for (let i = 0; i < 10; i++) await play();
    expect((await h.as(T, "server").post(`/games/${GAME}/leaderboard`, { count: 5 })).status).toBe(200);

    cluster.kill(master);
    // Completions go on while the board's slot has no master, until its replica took over.
    const deadline = Date.now() + 30_000;
    while ((await cluster.role(replica)) !== "master" && Date.now() < deadline) await play();
    expect(await cluster.role(replica)).toBe("master");
    for (let i = 0; i < 5; i++) await play();
    await cluster.waitUntilHealthy();

    // The writes that reached no master wait in PostgreSQL's outbox. How many depends on timing:
    // the client retries a write once the slot map moves, so on a slow machine a failover can be
    // absorbed whole, and the outbox stays empty (its own path is tested against a stopped Redis in
    // leaderboard.test.ts). Either way the board must end as PostgreSQL has it.
    for (let i = 0; i < 50 && (await h.db.leaderboardOutbox.count()) > 0; i++) {
      await h.stats.outbox.drainOnce({ minAgeMs: 0 });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await h.db.leaderboardOutbox.count()).toBe(0);

    const { redis, postgres } = await boardsOf();
    // Every loser is new; the winners are seven players over and over.
    expect(postgres.size).toBe(n + Math.min(n, 7));
    expect(redis).toEqual(postgres);
    // The same client goes on on the new master: the next completion reaches the board (straight
    // away once the client has the new slot map, which it re-reads every 2 s; through the outbox
    // if it completes before that).
    await play();
    for (let i = 0; i < 50 && (await h.db.leaderboardOutbox.count()) > 0; i++) {
      await h.stats.outbox.drainOnce({ minAgeMs: 0 });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await h.db.leaderboardOutbox.count()).toBe(0);
    const after = await boardsOf();
    expect(after.redis).toEqual(after.postgres);
    const read = await h.as(T, "server").post(`/games/${GAME}/leaderboard`, { count: 500 }).expect(200);
    expect(read.body.leaderboard).toHaveLength(after.postgres.size);
  }, 120_000);
});
