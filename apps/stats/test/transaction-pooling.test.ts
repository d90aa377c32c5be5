import { randomUUID } from "node:crypto";
import { databaseNameOf } from "@arena/database";
import { type PgBouncer, startPgBouncer } from "@arena/database/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, gameConfig, type Harness, playMatch } from "./harness.js";
import { insertMatch } from "./match-fixture.js";

// The stats service through PgBouncer's transaction pooling: more app connections than server
// connections, so consecutive transactions of one app connection land on different servers, and
// anything prepared on one of them is unknown to the next.
let bouncer: PgBouncer;
let h: Harness;
const T = "pooled";
/** The winners' ranking points after the second round, as its completions answered them. */
let winnersPoints: number[] = [];
const teamsOf = (i: number) => [
  [`a${i}`, `b${i}`],
  [`c${i}`, `d${i}`],
];

beforeAll(async () => {
  const server = process.env.TEST_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
  bouncer = await startPgBouncer({ serverUrl: server, poolMode: "transaction", poolSize: 3 });
  h = await createHarness({
    completionTransactions: 4,
    connection: (url) => ({ url: bouncer.url(databaseNameOf(url)), poolMode: "transaction" }),
  });
  await h.as(T).put("/games/squads", gameConfig(2, 2)).expect(200);
});
afterAll(async () => {
  await h?.close();
  await bouncer?.stop();
});

describe("DATABASE_POOL_MODE=transaction behind PgBouncer's transaction pooling", () => {
  it("completes concurrent matches (the completion's statements unprepared) with the right results", async () => {
    const played = await Promise.all(
      Array.from({ length: 24 }, (_, i) => playMatch(h, T, "squads", teamsOf(i))),
    );
    for (const { body } of played) {
      expect(body.players.map((p) => [p.totalMatchesPlayed, p.rankingPoints])).toEqual([
        [1, 30],
        [1, 30],
        [1, 0],
        [1, 0],
      ]);
    }
    // A second round reads what the first wrote, on whatever server connection it gets.
    const again = await Promise.all(
      Array.from({ length: 24 }, (_, i) => playMatch(h, T, "squads", teamsOf(i))),
    );
    for (const { body } of again) expect(body.players.map((p) => p.totalMatchesPlayed)).toEqual([2, 2, 2, 2]);
    winnersPoints = again.flatMap(({ body }) =>
      body.players.slice(0, 2).map((p) => p.rankingPoints as number),
    );
    const pool = (await bouncer.pools()).find((p) => p.database === h.database.name);
    expect(pool).toMatchObject({ pool_mode: "transaction" });
    expect(Number(pool!.sv_idle) + Number(pool!.sv_used) + Number(pool!.sv_active)).toBeLessThanOrEqual(3);
  });

  it("confirms matches with the (otherwise named) confirmation statement, and rebuilds a board", async () => {
    const ids = Array.from({ length: 12 }, () => randomUUID());
    await Promise.all(
      ids.map((matchId, i) =>
        insertMatch(h.db, T, {
          matchId,
          gameId: "squads",
          server: "eu-1",
          status: "delivered",
          teams: [[{ playerId: `x${i}` }], [{ playerId: `y${i}` }]],
        }),
      ),
    );
    await Promise.all(
      ids.map((id) => h.as(T, "server").post(`/games/squads/matches/${id}/statuses/confirmed`).expect(204)),
    );
    const confirmed = await h.db.match.count({
      where: { tenantId: T, matchId: { in: ids }, status: "confirmed" },
    });
    expect(confirmed).toBe(12);

    const res = await h.as(T, "server").post("/games/squads/leaderboard", { count: 3 }).expect(200);
    expect(res.body.leaderboard.map((e: { ranking_points: number }) => e.ranking_points)).toEqual(
      winnersPoints.sort((a, b) => b - a).slice(0, 3),
    );
    await h.testRedis.flush();
    const rebuilt = await h.as(T, "server").post("/games/squads/leaderboard", { count: 3 }).expect(200);
    expect(rebuilt.body.leaderboard).toEqual(res.body.leaderboard);
  });
});
