import { leaderboardBatchBodies } from "@arena/contracts";
import { closeRedis } from "@arena/redis";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, gameConfig, type Harness, playMatch, seedBoard } from "./harness.js";
import { insertMatch } from "./match-fixture.js";

let h: Harness;
const T = "lbtenant";
const board = (body: object, game = "ladder") => h.as(T, "server").post(`/games/${game}/leaderboard`, body);
const ids = (res: { body: { leaderboard: Array<{ playerId: string }> } }) =>
  res.body.leaderboard.map((e) => e.playerId);

beforeAll(async () => {
  h = await createHarness();
  await h.as(T).put("/games/ladder", gameConfig(2, 1)).expect(200);
  await h.as(T).put("/games/other", gameConfig(2, 1)).expect(200);
  await h.as(T).put("/games/live", gameConfig(2, 1)).expect(200);
  // Ranks: p2 and p1 tie on 100 points, p2 reached them first; p5 and p6 tie on 0.
  await seedBoard(h.db, T, "ladder", 1, [
    { playerId: "p1", points: 100, at: 50 },
    { playerId: "p2", points: 100, at: 10 },
    { playerId: "p3", points: 70, at: 5 },
    { playerId: "p4", points: 40, at: 7 },
    { playerId: "p5", points: 0, at: 1 },
    { playerId: "p6", points: 0, at: 2 },
  ]);
  await seedBoard(h.db, T, "other", 1, [{ playerId: "only-other", points: 5, at: 1 }]);
});
afterAll(async () => {
  await h?.close();
});

describe("leaderboard reads", () => {
  it("answers from the top in rank order, ties going to who reached the points first", async () => {
    const res = await board({ count: 10 }).expect(200);
    expect(res.body).toEqual({
      season: "S1",
      leaderboard: [
        { playerId: "p2", rank: 1, ranking_points: 100 },
        { playerId: "p1", rank: 2, ranking_points: 100 },
        { playerId: "p3", rank: 3, ranking_points: 70 },
        { playerId: "p4", rank: 4, ranking_points: 40 },
        { playerId: "p5", rank: 5, ranking_points: 0 },
        { playerId: "p6", rank: 6, ranking_points: 0 },
      ],
    });
    expect(ids(await board({ count: 1 }).expect(200))).toEqual(["p2"]);
  });

  it("pages from a rank, up to the last rank and past it", async () => {
    const page = await board({ count: 2, fromRank: 2 }).expect(200);
    expect(page.body.leaderboard).toEqual([
      { playerId: "p1", rank: 2, ranking_points: 100 },
      { playerId: "p3", rank: 3, ranking_points: 70 },
    ]);
    expect((await board({ count: 5, fromRank: 6 }).expect(200)).body.leaderboard).toEqual([
      { playerId: "p6", rank: 6, ranking_points: 0 },
    ]);
    expect((await board({ count: 5, fromRank: 7 }).expect(200)).body.leaderboard).toEqual([]);
  });

  it("answers around a player, clamped at the top and the bottom of the board", async () => {
    expect(ids(await board({ count: 1, playerId: "p3" }).expect(200))).toEqual(["p1", "p3", "p4"]);
    const top = await board({ count: 2, playerId: "p2" }).expect(200);
    expect(top.body.leaderboard.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3]);
    expect(ids(await board({ count: 2, playerId: "p6" }).expect(200))).toEqual(["p4", "p5", "p6"]);
  });

  it("answers 404 for an unknown player, a player without an entry, an unknown season or game", async () => {
    expect((await board({ count: 5, playerId: "nobody" }).expect(404)).body.code).toBe("NOT_FOUND");
    await board({ count: 5, playerId: "only-other" }).expect(404);
    await board({ count: 5, season: "S9" }).expect(404);
    await board({ count: 5 }, "no-such-game").expect(404);
  });

  it("answers 400 naming the limit of each variant", async () => {
    const errorsOf = async (body: object) => (await board(body).expect(400)).body.errors;
    expect(await errorsOf({ count: 501 })).toEqual([{ pointer: "/count", detail: "must be <= 500" }]);
    expect(await errorsOf({ count: 101, fromRank: 1 })).toEqual([
      { pointer: "/count", detail: "must be <= 100 when fromRank is given" },
    ]);
    expect(await errorsOf({ count: 51, playerId: "p1" })).toEqual([
      { pointer: "/count", detail: "must be <= 50 when playerId is given" },
    ]);
    expect(await errorsOf({ count: 5, fromRank: 2, playerId: "p1" })).toEqual([
      { pointer: "/fromRank", detail: "is not allowed when playerId is given" },
    ]);
    expect(await errorsOf({ count: 0 })).toEqual([{ pointer: "/count", detail: "must be >= 1" }]);
    // The largest allowed counts are fine.
    await board({ count: 500 }).expect(200);
    await board({ count: 100, fromRank: 1 }).expect(200);
    await board({ count: 50, playerId: "p1" }).expect(200);
  });

  it("gives the same ranks back after Redis was flushed", async () => {
    const before = await board({ count: 10 }).expect(200);
    await h.testRedis.flush();
    const after = await board({ count: 10 }).expect(200);
    expect(after.body).toEqual(before.body);
    await h.testRedis.flush();
    expect(ids(await board({ count: 1, playerId: "p4" }).expect(200))).toEqual(["p3", "p4", "p5"]);
  });

  it("never moves a board backwards on a late or retried write", async () => {
    const ref = { tenantId: T, gameId: "ladder", season: 1 };
    await h.stats.leaderboards.ensureReady(ref);
    const at = new Date(Date.UTC(2026, 0, 1));
    await h.stats.leaderboards.write(ref, [{ playerId: "p5", points: 900, reachedAt: at, seq: 5n }]);
    // A late write (lower sequence) and a retry (same sequence) change nothing.
    await h.stats.leaderboards.write(ref, [{ playerId: "p5", points: 1, reachedAt: at, seq: 4n }]);
    await h.stats.leaderboards.write(ref, [{ playerId: "p5", points: 2, reachedAt: at, seq: 5n }]);
    expect((await board({ count: 1 }).expect(200)).body.leaderboard[0]).toEqual({
      playerId: "p5",
      rank: 1,
      ranking_points: 900,
    });
    // Back to what PostgreSQL holds: a rebuild takes PostgreSQL's values.
    await h.testRedis.flush();
    expect(ids(await board({ count: 1 }).expect(200))).toEqual(["p2"]);
  });

  it("keeps a write that raced a rebuild when it is newer than what the rebuild read", async () => {
    const ref = { tenantId: T, gameId: "ladder", season: 1 };
    await h.testRedis.flush();
    // The board is not ready: this write lands in the live keys and starts a rebuild, whose swap
    // must keep it (seq 7 beats the seq 1 PostgreSQL has for p6).
    await h.stats.leaderboards.write(ref, [
      { playerId: "p6", points: 1000, reachedAt: new Date(Date.UTC(2026, 0, 1)), seq: 7n },
    ]);
    await h.stats.leaderboards.ensureReady(ref);
    const top = await board({ count: 7 }).expect(200);
    expect(top.body.leaderboard[0]).toEqual({ playerId: "p6", rank: 1, ranking_points: 1000 });
    expect(top.body.leaderboard).toHaveLength(6);
    await h.testRedis.flush();
  });
});

describe("leaderboard reads sent together (getLeaderboardBatch, the gateway's)", () => {
  const batch = (reads: unknown[], game = "ladder") =>
    h.as(T, "server").post(`/internal/games/${game}/leaderboard-reads`, { reads });

  it("answers each read as getLeaderboard does, a failed one with its status alone, in order", async () => {
    const reads: unknown[] = [
      { count: 10 },
      { count: 2, fromRank: 2 },
      { count: 1, playerId: "p3" },
      { count: 5, playerId: "nobody" }, // 404
      { count: 101, fromRank: 1 }, // 400
      "not a body", // 400
      { count: 5, season: "S9" }, // 404
      { count: 1, playerId: "p6", ignored: true },
    ];
    const res = await batch(reads).expect(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const answers = res.body.answers as Array<{ status: number; body?: unknown }>;
    // Laid out one answer to a line, so the gateway takes each leaderboard's bytes as they are.
    const bodies = leaderboardBatchBodies(Buffer.from(res.text), reads.length);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 400, 400, 404, 200]);
    for (const [i, read] of reads.entries()) {
      if (answers[i]!.status !== 200) {
        expect(answers[i]).toEqual({ status: answers[i]!.status });
        continue;
      }
      // Byte for byte the answer of the read sent alone.
      const alone = await board(read as object).expect(200);
      expect(bodies?.[i]?.toString("utf8")).toBe(alone.text);
      expect(alone.headers["content-type"]).toBe(res.headers["content-type"]);
    }
  });

  it("checks the batch itself, and each read against its tenant's game and board", async () => {
    await batch([]).expect(400);
    await batch(Array.from({ length: 65 }, () => ({ count: 1 }))).expect(400);
    const unknownGame = await batch([{ count: 1 }], "no-such-game").expect(200);
    expect(unknownGame.body.answers).toEqual([{ status: 404 }]);
    const other = await batch([{ count: 1, playerId: "p1" }], "other").expect(200);
    expect(other.body.answers).toEqual([{ status: 404 }]);
    const tenantAlone = await h
      .as("another-tenant", "server")
      .post("/internal/games/ladder/leaderboard-reads", { reads: [{ count: 1 }] })
      .expect(200);
    expect(tenantAlone.body.answers).toEqual([{ status: 404 }]);
  });
});

describe("leaderboards and completions", () => {
  it("puts completed matches on the board, a tie going to the earlier winner", async () => {
    h.clock.advance(1000);
    await playMatch(h, T, "live", [["w1"], ["l1"]]);
    h.clock.advance(1000);
    await playMatch(h, T, "live", [["w2"], ["l2"]]);
    const res = await board({ count: 10 }, "live").expect(200);
    // Both winners have 30 points; w1 reached them first.
    expect(res.body.leaderboard).toEqual([
      { playerId: "w1", rank: 1, ranking_points: 30 },
      { playerId: "w2", rank: 2, ranking_points: 30 },
      expect.objectContaining({ ranking_points: 0 }),
      expect.objectContaining({ ranking_points: 0 }),
    ]);
  });

  it("keeps a completion when Redis is down and catches the board up once it is back", async () => {
    // A replica whose Redis is unreachable (nothing listens on port 1).
    const down = await h.startInstance({ redisUrl: "redis://127.0.0.1:1" });
    h.clock.advance(1000);
    const teams = [["w3"], ["l3"]];
    const { randomUUID } = await import("node:crypto");
    const matchId = randomUUID();
    await insertMatch(down.db, T, {
      matchId,
      gameId: "live",
      server: "eu-1",
      teams: teams.map((t) => t.map((playerId) => ({ playerId }))),
    });
    const res = await down.http
      .post(`/games/live/matches/${matchId}/statuses/completed`)
      .set("authorization", "Bearer test-service-token-0123456789")
      .set("x-arena-tenant", T)
      .set("x-arena-role", "server")
      .send({
        teams: [
          { rank: 0, players: [{ playerId: "w3", score: 1 }] },
          { rank: 1, players: [{ playerId: "l3", score: 0 }] },
        ],
      })
      .expect(200);
    expect(res.body.players[0]).toMatchObject({ playerId: "w3", rankingPoints: 30 });
    // Reads on that replica are 503 problems, not 500s.
    const read = await down.http
      .post("/games/live/leaderboard")
      .set("authorization", "Bearer test-service-token-0123456789")
      .set("x-arena-tenant", T)
      .set("x-arena-role", "server")
      .send({ count: 5 })
      .expect(503);
    expect(read.body.code).toBe("SERVICE_UNAVAILABLE");
    await closeRedis(down.redis);
    // The result is in PostgreSQL, the board does not have it yet, the outbox does.
    expect(ids(await board({ count: 10 }, "live").expect(200))).not.toContain("w3");
    const pending = await h.db.leaderboardOutbox.findMany();
    expect(pending.filter((row) => row.playerIds.includes("w3"))).toHaveLength(1);
    // Redis is back (the main instance reaches it): the outbox worker repairs the board.
    const drained = await h.stats.outbox.drainOnce({ minAgeMs: 0 });
    expect(drained.applied).toBeGreaterThanOrEqual(1);
    expect(drained.remaining).toBe(0);
    const after = await board({ count: 10 }, "live").expect(200);
    expect(after.body.leaderboard.slice(0, 3).map((e: { playerId: string }) => e.playerId)).toEqual([
      "w1",
      "w2",
      "w3",
    ]);
  });
});
