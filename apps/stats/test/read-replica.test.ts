import { withDatabaseName } from "@arena/database";
import { type ReplicaPair, startReplicaPair } from "@arena/database/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, gameConfig, type Harness, playMatch } from "./harness.js";

// Stats on a real primary with a real streaming standby as DATABASE_READ_URL. With the standby's
// replay paused, what it serves is stale: the routed reads show it, everything else must not.
let pair: ReplicaPair;
let h: Harness;
const T = "replicated";
const duel = [["ann"], ["ben"]];

async function lagMetrics(): Promise<{ seconds: number; bytes: number }> {
  const text = (await h.http.get("/metrics").expect(200)).text;
  const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, "m").exec(text)?.[1]);
  return {
    seconds: value("stats_database_replica_lag_seconds"),
    bytes: value("stats_database_replica_lag_bytes"),
  };
}

beforeAll(async () => {
  pair = await startReplicaPair();
  h = await createHarness({
    databaseServerUrl: pair.primaryUrl,
    connection: (url) => ({
      url,
      readUrl: withDatabaseName(pair.replicaUrl, new URL(url).pathname.slice(1)),
      catchUpMs: 300,
    }),
  });
  await h.as(T).put("/games/duel", gameConfig(2, 1)).expect(200);
  await playMatch(h, T, "duel", duel);
  await pair.caughtUp();
}, 90_000);
afterAll(async () => {
  await pair?.resumeReplay().catch(() => {});
  await h?.close();
  await pair?.stop();
});

describe("reads routed to the read replica (DATABASE_READ_URL)", () => {
  it("serves statistics and history from the replica, completions read and write the primary", async () => {
    expect(await lagMetrics()).toEqual({ seconds: 0, bytes: 0 });
    await pair.pauseReplay();
    h.clock.advance(1000);
    const second = await playMatch(h, T, "duel", duel);
    // The completion read ann's first result inside its transaction, on the primary.
    expect(second.body.players[0]).toMatchObject({
      playerId: "ann",
      totalMatchesPlayed: 2,
      matchesPlayed: 2,
    });

    const stats = await h.as(T, "server").get("/players/ann").expect(200);
    expect(stats.body).toMatchObject({ totalMatchesPlayed: 1 });
    const history = await h.as(T, "server").get("/players/ann/history").expect(200);
    expect(history.body.results).toHaveLength(1);
    // A player only the primary knows yet: the replica's answer, 404.
    await playMatch(h, T, "duel", [["cat"], ["dan"]]);
    await h.as(T, "server").get("/players/cat").expect(404);
  });

  it("lists a new tenant's seasons from the primary when the replica has none yet", async () => {
    const res = await h.as("fresh-tenant").get("/seasons").expect(200);
    expect(res.body.currentSeason).toBe("S1");
  });

  it("rebuilds a board from the primary while the replica lags, so no committed result is missing", async () => {
    await h.testRedis.flush();
    const board = await h.as(T, "server").post("/games/duel/leaderboard", { count: 10 }).expect(200);
    expect(board.body.leaderboard.map((e: { playerId: string }) => e.playerId).sort()).toEqual([
      "ann",
      "ben",
      "cat",
      "dan",
    ]);
  });

  it("reports the replica's lag while its replay is paused, and none once it caught up", async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const paused = await lagMetrics();
    expect(paused.seconds).toBeGreaterThanOrEqual(1);
    expect(paused.bytes).toBeGreaterThan(0);

    await pair.resumeReplay();
    await pair.caughtUp();
    expect(await lagMetrics()).toEqual({ seconds: 0, bytes: 0 });
    const stats = await h.as(T, "server").get("/players/ann").expect(200);
    expect(stats.body).toMatchObject({ totalMatchesPlayed: 2 });
    await h.as(T, "server").get("/players/cat").expect(200);
  });

  it("rebuilds a board right after a completion with that result, asynchronous commit or not", async () => {
    // The test servers acknowledge commits before their WAL is flushed (synchronous_commit = off),
    // so the WAL write position is behind the completion's commit: the rebuild must wait for more.
    for (let round = 0; round < 5; round++) {
      const pair = [[`async-${round}-a`], [`async-${round}-b`]];
      await playMatch(h, T, "duel", pair);
      await h.testRedis.flush();
      const board = await h.as(T, "server").post("/games/duel/leaderboard", { count: 100 }).expect(200);
      const ids = board.body.leaderboard.map((e: { playerId: string }) => e.playerId);
      expect(ids).toEqual(expect.arrayContaining(pair.flat()));
    }
  });

  it("answers from the primary while the replica is down, and the lag is not known (NaN)", async () => {
    await pair.stopReplica();
    const stats = await h.as(T, "server").get("/players/ann").expect(200);
    expect(stats.body).toMatchObject({ totalMatchesPlayed: 2 });
    await h.as(T, "server").get("/players/ann/history").expect(200);
    await h.as(T).get("/seasons").expect(200);
    const lag = await lagMetrics();
    expect(lag.seconds).toBeNaN();
  });
});
