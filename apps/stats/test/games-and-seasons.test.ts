import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, gameConfig, type Harness, playMatch } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("games", () => {
  it("creates a game with its defaults, answers it, and updates it", async () => {
    const created = await h
      .as("acme")
      .put("/games/ranked-2v2", { ...gameConfig(2, 2), maxWaitingTime: 90 })
      .expect(200);
    expect(created.body).toEqual({
      gameId: "ranked-2v2",
      mode: "2v2",
      backfillTimeout: 60,
      numTeams: 2,
      numPlayersPerTeam: 2,
      targetWaitingTime: 20,
      maxWaitingTime: 90,
      servers: ["eu-1", "us-1"],
      confirmationTimeout: 60,
      maxQueueSeconds: 600,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await h.as("acme", "server").get("/games/ranked-2v2").expect(200)).body).toEqual(created.body);
    const updated = await h
      .as("acme")
      .put("/games/ranked-2v2", { ...gameConfig(4, 1), maxQueueSeconds: 120 })
      .expect(200);
    expect(updated.body).toMatchObject({
      mode: "1v1v1v1",
      maxQueueSeconds: 120,
      createdAt: created.body.createdAt,
    });
    expect(updated.body.maxWaitingTime).toBeUndefined();
  });

  it("answers 400 naming the field for a bad config or game id, and 404 for an unknown game", async () => {
    const res = await h
      .as("acme")
      .put("/games/g1", { numTeams: 1, numPlayersPerTeam: 1, servers: [] })
      .expect(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { pointer: "/numPlayersPerTeam", detail: "must be >= 2" },
        { pointer: "/servers", detail: "must NOT have fewer than 1 items" },
      ]),
    );
    expect((await h.as("acme").put("/games/bad%20id", gameConfig()).expect(400)).body.errors[0].pointer).toBe(
      "/gameId",
    );
    expect((await h.as("acme").get("/games/unknown").expect(404)).body.code).toBe("NOT_FOUND");
  });
});

describe("seasons", () => {
  it("starts every tenant in S1", async () => {
    const res = await h.as("fresh", "server").get("/seasons").expect(200);
    expect(res.body).toEqual({
      currentSeason: "S1",
      seasons: [
        {
          season: "S1",
          startsAt: expect.any(String),
          endsAt: null,
          isCurrentSeason: true,
          ratingCarryOver: null,
        },
      ],
    });
  });

  it("restarts ranking points at 0, moves ratings toward the default and keeps the old board", async () => {
    const t = "seasonal";
    await h.as(t).put("/games/duel", gameConfig()).expect(200);
    for (let i = 0; i < 3; i++) await playMatch(h, t, "duel", [["star"], [`victim-${i}`]]);
    const s1 = (await h.as(t).get("/players/star").expect(200)).body.seasons[0].stats[0];
    expect(s1.rankingPoints).toBeGreaterThan(60);

    h.clock.advance(60_000);
    const started = await h.as(t).post("/seasons", { ratingCarryOver: 0.5 }).expect(201);
    expect(started.body).toMatchObject({
      season: "S2",
      isCurrentSeason: true,
      ratingCarryOver: 0.5,
      endsAt: null,
    });
    const list = await h.as(t).get("/seasons").expect(200);
    expect(list.body.currentSeason).toBe("S2");
    expect(list.body.seasons[0]).toMatchObject({
      season: "S1",
      isCurrentSeason: false,
      endsAt: started.body.startsAt,
    });

    const { body } = await playMatch(h, t, "duel", [["star"], ["newcomer"]]);
    const star = body.players[0]!;
    expect(star).toMatchObject({
      season: "S2",
      rankingPoints: expect.any(Number),
      seasonMatchesPlayed: 1,
      totalMatchesPlayed: 4,
    });
    expect(star.rankingPoints).toBeLessThanOrEqual(40);
    // The rating started halfway between S1's and the default, then the win raised it.
    const [before] = (await h.as(t).get("/players/star/history?limit=1").expect(200)).body.results;
    expect(before.season).toBe("S2");
    expect(before.before.rankingPoints).toBe(0);
    expect(before.before.rating).toBeLessThan(s1.rating);
    expect(before.before.rating).toBeGreaterThan(1500 - 200);

    // S1's board is still readable; S2's has the new season only.
    const old = await h.as(t).post("/games/duel/leaderboard", { count: 10, season: "S1" }).expect(200);
    expect(old.body.leaderboard[0]).toMatchObject({ playerId: "star", ranking_points: s1.rankingPoints });
    const now = await h.as(t).post("/games/duel/leaderboard", { count: 10 }).expect(200);
    expect(now.body).toMatchObject({ season: "S2" });
    expect(now.body.leaderboard.map((e: { playerId: string }) => e.playerId)).toEqual(["star", "newcomer"]);
  });

  it("applies Idem's season reset with a carry-over per game, and only for the next season", async () => {
    const t = "idem";
    await h.as(t).put("/games/a", gameConfig()).expect(200);
    await h.as(t).put("/games/b", gameConfig()).expect(200);
    for (const g of ["a", "b"])
      for (let i = 0; i < 3; i++) await playMatch(h, t, g, [["p"], [`o-${g}-${i}`]]);
    const s1 = (await h.as(t).get("/players/p").expect(200)).body.seasons[0].stats;
    const ratingIn = (stats: Array<{ gameId: string; rating: number }>, g: string) =>
      stats.find((s) => s.gameId === g)!.rating;

    await h.as(t).post("/admin/season/reset", { seasonName: "S3" }).expect(409);
    h.clock.advance(60_000);
    const reset = await h
      .as(t)
      .post("/admin/season/reset", {
        seasonName: "S2",
        percentages: [
          { gameId: "a", percentage: 100 },
          { gameId: "b", percentage: 0 },
        ],
      })
      .expect(201);
    expect(reset.body.season).toBe("S2");
    await playMatch(h, t, "a", [["p"], ["x"]]);
    await playMatch(h, t, "b", [["p"], ["y"]]);
    const history = (await h.as(t).get("/players/p/history?season=S2").expect(200)).body.results;
    const first = (g: string) => history.find((r: { gameId: string }) => r.gameId === g).before.rating;
    expect(first("a")).toBeCloseTo(ratingIn(s1, "a"), 1);
    expect(first("b")).toBe(1500);
  });

  it("refuses a second scheduled season and a start before the current season", async () => {
    const t = "sched";
    await h.as(t).get("/seasons").expect(200);
    const future = new Date(h.clock.now().getTime() + 86_400_000).toISOString();
    const scheduled = await h.as(t).post("/seasons", { startsAt: future }).expect(201);
    expect(scheduled.body).toMatchObject({ season: "S2", isCurrentSeason: false });
    expect((await h.as(t).get("/seasons").expect(200)).body.currentSeason).toBe("S1");
    await h.as(t).post("/seasons", {}).expect(409);
    const past = await h.as("sched2").post("/seasons", { startsAt: "2001-01-01T00:00:00Z" }).expect(400);
    expect(past.body.errors[0].pointer).toBe("/startsAt");
    const bad = await h.as(t).post("/seasons", { ratingCarryOver: 2 }).expect(400);
    expect(bad.body.errors).toEqual([{ pointer: "/ratingCarryOver", detail: "must be <= 1" }]);
  });
});
