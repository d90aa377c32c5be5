import { validatePlayerHistory, validatePlayerStats, validateRestPlayerStats } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, gameConfig, type Harness, playMatch } from "./harness.js";

let h: Harness;
const T = "players";
beforeAll(async () => {
  h = await createHarness();
  await h.as(T).put("/games/duel", gameConfig(2, 1)).expect(200);
  await h.as(T).put("/games/squads", gameConfig(2, 2)).expect(200);
  await playMatch(h, T, "duel", [["ann"], ["ben"]]);
  h.clock.advance(1000);
  await playMatch(h, T, "duel", [["ann"], ["cat"]]);
  h.clock.advance(1000);
  await playMatch(
    h,
    T,
    "squads",
    [
      ["ann", "ben"],
      ["cat", "dan"],
    ],
    [1, 0],
  );
});
afterAll(async () => {
  await h?.close();
});

describe("GET /players/{playerId}", () => {
  it("answers the REST PlayerStats shape, one entry per game with mode and gameId", async () => {
    const res = await h.as(T, "server").get("/players/ann").expect(200);
    expect(validateRestPlayerStats(res.body)).toBe(true);
    expect(res.body).toMatchObject({ playerId: "ann", totalMatchesPlayed: 3, totalWins: 2, totalLosses: 1 });
    const [s1] = res.body.seasons;
    expect(s1).toMatchObject({ season: "S1", seasonMatchesPlayed: 3, seasonWins: 2, seasonLosses: 1 });
    expect(s1.isCurrentSeason).toBeUndefined();
    expect(s1.stats).toEqual([
      expect.objectContaining({
        gameId: "duel",
        mode: "1v1",
        matchesPlayed: 2,
        wins: 2,
        losses: 0,
        winRatio: 1,
      }),
      expect.objectContaining({
        gameId: "squads",
        mode: "2v2",
        matchesPlayed: 1,
        wins: 0,
        losses: 1,
        winRatio: 0,
      }),
    ]);
    expect(s1.stats[0].rank).toBeUndefined();
  });

  it("reads ?seasons=, refuses more than 5 and seasons that have not started", async () => {
    await h.as(T).get("/players/ann?seasons=S1").expect(200);
    const tooMany = await h.as(T).get("/players/ann?seasons=S1,S2,S3,S4,S5,S6").expect(400);
    expect(tooMany.body.errors[0].pointer).toBe("/seasons");
    await h.as(T).get("/players/ann?seasons=S1,bogus").expect(400);
    await h.as(T).get("/players/ann?seasons=S2").expect(404);
    await h.as(T).get("/players/nobody").expect(404);
  });
});

describe("the getPlayerStats action", () => {
  const action = (payload: object) => h.as(T, "server").post("/internal/actions/getPlayerStats", payload);

  it("answers PlayerStats with leaderboard ranks and the current season marked", async () => {
    const res = await action({ playerId: "ann" }).expect(200);
    expect(validatePlayerStats(res.body)).toBe(true);
    expect(res.body.seasons).toHaveLength(1);
    const [s1] = res.body.seasons;
    expect(s1.isCurrentSeason).toBe(true);
    const duel = s1.stats.find((s: { gameId: string }) => s.gameId === "duel");
    expect(duel.rank).toBe(1);
    const squads = s1.stats.find((s: { gameId: string }) => s.gameId === "squads");
    expect(squads.rank).toBeGreaterThanOrEqual(3);
  });

  it("answers the current and the previous season once a second season runs", async () => {
    await h.as("two").put("/games/duel", gameConfig()).expect(200);
    await playMatch(h, "two", "duel", [["eve"], ["fay"]]);
    h.clock.advance(1000);
    await h.as("two").post("/seasons", {}).expect(201);
    const res = await h.as("two").post("/internal/actions/getPlayerStats", { playerId: "eve" }).expect(200);
    expect(
      res.body.seasons.map((s: { season: string; isCurrentSeason: boolean }) => [
        s.season,
        s.isCurrentSeason,
      ]),
    ).toEqual([
      ["S2", true],
      ["S1", false],
    ]);
    expect(res.body.seasons[0].stats).toEqual([]);
    expect(res.body.seasons[1].stats[0]).toMatchObject({ gameId: "duel", rank: 1 });
  });

  it("answers 400 for more than 5 seasons and 404 for an unknown player", async () => {
    const res = await action({ playerId: "ann", seasons: ["S1", "S2", "S3", "S4", "S5", "S6"] }).expect(400);
    expect(res.body.errors[0].pointer).toBe("/seasons");
    expect((await action({ playerId: "nobody" }).expect(404)).body.code).toBe("NOT_FOUND");
    expect((await action({}).expect(400)).body.errors).toEqual([
      { pointer: "/playerId", detail: "is required" },
    ]);
  });
});

describe("GET /players/{playerId}/history", () => {
  it("lists the latest results first with the win chance and the standing before and after", async () => {
    const res = await h.as(T, "server").get("/players/ann/history").expect(200);
    expect(validatePlayerHistory(res.body)).toBe(true);
    expect(res.body.nextCursor).toBeNull();
    const [squads, second, first] = res.body.results;
    expect(squads).toMatchObject({
      gameId: "squads",
      mode: "2v2",
      season: "S1",
      teamRank: 1,
      outcome: "loss",
      score: 10,
    });
    expect(first).toMatchObject({
      gameId: "duel",
      outcome: "win",
      predictedWinChance: 0.5,
      before: { rating: 1500, ratingUncertainty: 333.33, rankingPoints: 0 },
      after: { rankingPoints: 30 },
    });
    expect(second.before).toEqual(first.after);
    expect(second.predictedWinChance).toBeGreaterThan(0.5);
  });

  it("pages with a cursor and filters by game and season", async () => {
    const page1 = await h.as(T).get("/players/ann/history?limit=2").expect(200);
    expect(page1.body.results).toHaveLength(2);
    const page2 = await h
      .as(T)
      .get(`/players/ann/history?limit=2&cursor=${page1.body.nextCursor}`)
      .expect(200);
    expect(page2.body.results).toHaveLength(1);
    expect(page2.body.nextCursor).toBeNull();
    const seen = [...page1.body.results, ...page2.body.results].map((r: { matchId: string }) => r.matchId);
    expect(new Set(seen).size).toBe(3);
    const duel = await h.as(T).get("/players/ann/history?gameId=duel&season=S1").expect(200);
    expect(duel.body.results.map((r: { gameId: string }) => r.gameId)).toEqual(["duel", "duel"]);
  });

  it("answers 400 naming a bad limit, cursor or season", async () => {
    const errors = async (q: string) =>
      (await h.as(T).get(`/players/ann/history?${q}`).expect(400)).body.errors[0].pointer;
    expect(await errors("limit=0")).toBe("/limit");
    expect(await errors("limit=101")).toBe("/limit");
    expect(await errors("limit=ten")).toBe("/limit");
    expect(await errors("cursor=not-a-cursor")).toBe("/cursor");
    expect(await errors("season=X")).toBe("/season");
    expect(await errors("sort=asc")).toBe("/sort");
  });
});
