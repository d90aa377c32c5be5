import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, createMatch, gameConfig, type Harness, playMatch, result } from "./harness.js";
import { dropPlayer, insertMatch } from "./match-fixture.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.as("acme").put("/games/duel", gameConfig(2, 1)).expect(200);
  await h.as("acme").put("/games/squads", gameConfig(2, 2)).expect(200);
});
afterAll(async () => {
  await h?.close();
});

const path = (game: string, match: string) => `/games/${game}/matches/${match}/statuses/completed`;

describe("completing a match", () => {
  it("rates both players, counts the result and answers every PlayerResult field", async () => {
    const { body } = await playMatch(h, "acme", "duel", [["alice"], ["bob"]]);
    const [alice, bob] = body.players;
    expect(alice).toEqual({
      playerId: "alice",
      rating: expect.any(Number),
      ratingUncertainty: expect.any(Number),
      rankingPoints: 30,
      ratingDeltaLastGame: expect.any(Number),
      rankingDeltaLastGame: 30,
      wins: 1,
      losses: 0,
      matchesPlayed: 1,
      winRatio: 1,
      seasonWins: 1,
      seasonLosses: 0,
      seasonMatchesPlayed: 1,
      totalWins: 1,
      totalLosses: 0,
      totalMatchesPlayed: 1,
      season: "S1",
    });
    expect(alice!.rating as number).toBeGreaterThan(1500);
    expect(alice!.ratingDeltaLastGame as number).toBeGreaterThan(0);
    expect(bob).toMatchObject({
      playerId: "bob",
      rankingPoints: 0,
      rankingDeltaLastGame: 0,
      wins: 0,
      losses: 1,
    });
    expect(bob!.rating as number).toBeLessThan(1500);
  });

  it("returns the stored answer to a replay of the same body and counts the match once", async () => {
    const teams = [["carol"], ["dave"]];
    const matchId = await createMatch(h, "acme", "duel", teams);
    const first = await h.as("acme", "server").post(path("duel", matchId), result(teams)).expect(200);
    const again = await h.as("acme", "server").post(path("duel", matchId), result(teams)).expect(200);
    expect(again.body).toEqual(first.body);
    const stats = await h.as("acme").get("/players/carol").expect(200);
    expect(stats.body.totalMatchesPlayed).toBe(1);
  });

  it("counts concurrent replays of one completion once", async () => {
    const teams = [["uma"], ["vic"]];
    const matchId = await createMatch(h, "acme", "duel", teams);
    const answers = await Promise.all(
      [1, 2, 3].map(() => h.as("acme", "server").post(path("duel", matchId), result(teams)).expect(200)),
    );
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(answers[2]!.body).toEqual(answers[0]!.body);
    expect((await h.as("acme").get("/players/uma").expect(200)).body.totalMatchesPlayed).toBe(1);
  });

  it("answers 409 to a different result for a completed match, and changes nothing", async () => {
    const teams = [["erin"], ["frank"]];
    const matchId = await createMatch(h, "acme", "duel", teams);
    await h.as("acme", "server").post(path("duel", matchId), result(teams)).expect(200);
    const res = await h
      .as("acme", "server")
      .post(path("duel", matchId), result(teams, [1, 0]))
      .expect(409);
    expect(res.body.code).toBe("CONFLICT");
    expect((await h.as("acme").get("/players/frank").expect(200)).body.totalWins).toBe(0);
  });

  it("requires exactly the match's roster", async () => {
    const teams = [["gina"], ["hal"]];
    const matchId = await createMatch(h, "acme", "duel", teams);
    const stranger = await h
      .as("acme", "server")
      .post(path("duel", matchId), result([["gina"], ["mallory"]]))
      .expect(400);
    expect(stranger.body.errors).toEqual(
      expect.arrayContaining([
        { pointer: "/teams/1/players/0/playerId", detail: "is not in this match's roster" },
      ]),
    );
    const missing = await h
      .as("acme", "server")
      .post(path("duel", matchId), result([["gina"]]))
      .expect(400);
    expect(missing.body.errors[0].pointer).toBe("/teams");
    const twice = await h
      .as("acme", "server")
      .post(path("duel", matchId), result([["gina"], ["gina"]]))
      .expect(400);
    expect(twice.body.errors[0]).toEqual({
      pointer: "/teams/1/players/0/playerId",
      detail: "is listed twice",
    });
  });

  it("rates a dropped player listed with its team, and accepts it left out", async () => {
    const teams = [
      ["ivy", "jack"],
      ["kim", "lee"],
    ];
    const matchId = await createMatch(h, "acme", "squads", teams);
    await dropPlayer(h.pool, "acme", matchId, "jack", h.clock.now());
    const res = await h.as("acme", "server").post(path("squads", matchId), result(teams)).expect(200);
    expect(res.body.players.map((p: { playerId: string }) => p.playerId)).toEqual([
      "ivy",
      "jack",
      "kim",
      "lee",
    ]);
    const other = await createMatch(h, "acme", "squads", teams);
    await dropPlayer(h.pool, "acme", other, "jack", h.clock.now());
    await h
      .as("acme", "server")
      .post(path("squads", other), result([["ivy"], ["kim", "lee"]]))
      .expect(200);
  });

  it("stores players whose ids hold quotes, backslashes and any Unicode exactly as given", async () => {
    // The transaction writes ids as escaped SQL literals: they must come back byte for byte.
    const ids = ["o'brien", "back\\slash\\'--", "caf\u00e9 \u{1F3AE}", "semi;colon $1 \\x00"];
    const teams = [
      [ids[0]!, ids[1]!],
      [ids[2]!, ids[3]!],
    ];
    const { matchId, body } = await playMatch(h, "acme", "squads", teams);
    expect(body.players.map((p) => p.playerId).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const res = await h
        .as("acme")
        .get(`/players/${encodeURIComponent(id)}`)
        .expect(200);
      expect(res.body).toMatchObject({ playerId: id, totalMatchesPlayed: 1 });
    }
    // A replay is answered from what was stored, ids included.
    const replay = await h.as("acme", "server").post(path("squads", matchId), result(teams)).expect(200);
    expect(replay.body).toEqual(body);
  });

  it("answers 404 for an unknown match, a match of another game and another tenant's match", async () => {
    const teams = [["nia"], ["oz"]];
    const matchId = await createMatch(h, "acme", "duel", teams);
    await h
      .as("acme", "server")
      .post(path("duel", "00000000-0000-4000-8000-000000000000"), result(teams))
      .expect(404);
    await h.as("acme", "server").post(path("squads", matchId), result(teams)).expect(404);
    await h.as("globex", "server").post(path("duel", matchId), result(teams)).expect(404);
  });

  it("refuses to complete a match that is not confirmed", async () => {
    const teams = [["pat"], ["quin"]];
    const { randomUUID } = await import("node:crypto");
    const matchId = randomUUID();
    await insertMatch(h.db, "acme", {
      matchId,
      gameId: "duel",
      server: "eu-1",
      status: "delivered",
      teams: teams.map((t) => t.map((playerId) => ({ playerId }))),
    });
    expect(
      (await h.as("acme", "server").post(path("duel", matchId), result(teams)).expect(409)).body.code,
    ).toBe("CONFLICT");
  });

  it("answers 400 naming the field for a malformed body", async () => {
    const matchId = await createMatch(h, "acme", "duel", [["ray"], ["sam"]]);
    const res = await h
      .as("acme", "server")
      .post(path("duel", matchId), { teams: [{ rank: -1, players: [{ playerId: "ray" }] }] })
      .expect(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { pointer: "/teams/0/rank", detail: "must be >= 0" },
        { pointer: "/teams/0/players/0/score", detail: "is required" },
      ]),
    );
  });

  it("loses no update when concurrent completions of different matches share a player", async () => {
    const matches = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createMatch(h, "acme", "duel", [["hub"], [`rival-${i}`]])),
    );
    await Promise.all(
      matches.map((matchId, i) =>
        h
          .as("acme", "server")
          .post(path("duel", matchId), result([["hub"], [`rival-${i}`]]))
          .expect(200),
      ),
    );
    const stats = await h.as("acme").get("/players/hub").expect(200);
    expect(stats.body.totalMatchesPlayed).toBe(12);
    expect(stats.body.totalWins).toBe(12);
    const duel = stats.body.seasons[0].stats.find((s: { gameId: string }) => s.gameId === "duel");
    expect(duel).toMatchObject({ matchesPlayed: 12, wins: 12 });
    // Every win adds at least 20 points, each one applied on top of the previous.
    expect(duel.rankingPoints).toBeGreaterThanOrEqual(240);
    const history = await h.as("acme").get("/players/hub/history?limit=100").expect(200);
    expect(history.body.results).toHaveLength(12);
    // The clock stands still here, so order the results by their points: each one must start
    // exactly where the previous one ended (a lost update would leave a gap or a repeat).
    type Step = { before: { rankingPoints: number }; after: { rankingPoints: number } };
    const chain = [...(history.body.results as Step[])].sort(
      (a, b) => a.before.rankingPoints - b.before.rankingPoints,
    );
    expect(chain[0]!.before.rankingPoints).toBe(0);
    chain.forEach((step, i) => {
      if (i > 0) expect(step.before.rankingPoints).toBe(chain[i - 1]!.after.rankingPoints);
    });
    expect(chain[11]!.after.rankingPoints).toBe(duel.rankingPoints);
  });
});

const complete = (game: string, match: string, body: object) =>
  h.as("acme", "server").post(path(game, match), body).timeout(5_000);

describe("a completion that is refused touches no player", () => {
  it("answers an unknown match, another game's and an unconfirmed one without creating or locking the players it names", async () => {
    await playMatch(h, "acme", "duel", [["held"], ["other"]]);
    const ghosts = Array.from({ length: 200 }, (_, i) => `ghost-${i}`);
    const teams = [["held", ...ghosts.slice(0, 100)], ghosts.slice(100)];
    const delivered = randomUUID();
    await insertMatch(h.db, "acme", {
      matchId: delivered,
      gameId: "duel",
      server: "eu-1",
      status: "delivered",
      teams: [[{ playerId: "held" }], [{ playerId: "ghost-0" }]],
    });
    const squadMatch = await createMatch(h, "acme", "squads", [
      ["held", "ghost-1"],
      ["ghost-2", "ghost-3"],
    ]);

    // Another transaction holds an existing player's row and inserts a new one without committing:
    // a completion that upserted or locked either would wait for it (until the request times out).
    const other = await h.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM players WHERE tenant_id = 'acme' AND player_id = 'held' FOR UPDATE");
      await other.query(
        "INSERT INTO players (tenant_id, player_id, updated_at) VALUES ('acme', 'ghost-0', now())",
      );
      const unknown = await complete("duel", randomUUID(), result(teams));
      expect(unknown.status).toBe(404);
      expect((await complete("duel", squadMatch, result(teams))).status).toBe(404);
      expect((await complete("duel", delivered, result([["held"], ["ghost-0"]]))).status).toBe(409);
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
    const created = await h.db.player.count({ where: { tenantId: "acme", playerId: { in: ghosts } } });
    expect(created).toBe(0);
  });

  it("locks no player for a body that names someone outside the match's roster", async () => {
    await playMatch(h, "acme", "duel", [["keeper"], ["visitor"]]);
    const matchId = await createMatch(h, "acme", "duel", [["keeper"], ["rookie"]]);
    const other = await h.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM players WHERE tenant_id = 'acme' AND player_id = 'keeper' FOR UPDATE");
      const res = await complete("duel", matchId, result([["keeper"], ["stranger"]]));
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual({
        pointer: "/teams/1/players/0/playerId",
        detail: "is not in this match's roster",
      });
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
    expect(await h.db.player.count({ where: { tenantId: "acme", playerId: "stranger" } })).toBe(0);
    // The match is still there to complete, with its roster.
    await complete("duel", matchId, result([["keeper"], ["rookie"]])).expect(200);
  });
});

describe("a completion keeps the shape of its match", () => {
  const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) =>
    (res.body.errors ?? []).map((e) => e.pointer);

  it("refuses a 1v1 reported as one team of two, and counts nothing", async () => {
    const matchId = await createMatch(h, "acme", "duel", [["solo-a"], ["solo-b"]]);
    const res = await complete("duel", matchId, result([["solo-a", "solo-b"]]));
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({
      pointer: "/teams",
      detail: "must hold 2 teams, one per team of the match",
    });
    await h.as("acme").get("/players/solo-a").expect(404);
    // Reported as the match was formed, it completes.
    const done = await complete("duel", matchId, result([["solo-a"], ["solo-b"]])).expect(200);
    expect(done.body.players.map((p: { wins: number }) => p.wins)).toEqual([1, 0]);
  });

  it("refuses more teams than the match has", async () => {
    const matchId = await createMatch(h, "acme", "squads", [
      ["tri-a", "tri-b"],
      ["tri-c", "tri-d"],
    ]);
    const res = await complete("squads", matchId, result([["tri-a"], ["tri-b"], ["tri-c", "tri-d"]]));
    expect(res.status).toBe(400);
    expect(pointers(res)).toContain("/teams");
  });

  it("refuses players reported in another team than the match put them in", async () => {
    const matchId = await createMatch(h, "acme", "squads", [
      ["swap-a", "swap-b"],
      ["swap-c", "swap-d"],
    ]);
    const res = await complete(
      "squads",
      matchId,
      result([
        ["swap-a", "swap-c"],
        ["swap-b", "swap-d"],
      ]),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        pointer: "/teams/0/players/1/playerId",
        detail: "is in another team of this match than /teams/0/players/0",
      },
      { pointer: "/teams/1/players/0/playerId", detail: "is in the same team of this match as /teams/0" },
      {
        pointer: "/teams/1/players/1/playerId",
        detail: "is in another team of this match than /teams/1/players/0",
      },
    ]);
    // Teams may come in any order, each whole.
    await complete(
      "squads",
      matchId,
      result([
        ["swap-d", "swap-c"],
        ["swap-b", "swap-a"],
      ]),
    ).expect(200);
  });

  it("refuses a match team split over two reported teams", async () => {
    const matchId = await createMatch(h, "acme", "squads", [
      ["split-a", "split-b"],
      ["split-c", "split-d"],
    ]);
    const res = await complete("squads", matchId, result([["split-a"], ["split-b"], ["split-c", "split-d"]]));
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({
      pointer: "/teams/1/players/0/playerId",
      detail: "is in the same team of this match as /teams/0",
    });
  });

  it("counts a backfill's replacement in its dropped player's team, the dropped player listed there or left out", async () => {
    const teams = [
      ["bf-a", "bf-b"],
      ["bf-c", "bf-d"],
    ];
    const backfilled = async () => {
      const matchId = await createMatch(h, "acme", "squads", teams);
      await dropPlayer(h.pool, "acme", matchId, "bf-a", h.clock.now());
      await h.db.matchPlayer.create({
        data: { tenantId: "acme", matchId, playerId: "bf-sub", team: 0, role: "backfill" },
      });
      return matchId;
    };
    const first = await backfilled();
    // The replacement in the other team, or the dropped player there: the match's teams changed.
    const moved = await complete("squads", first, result([["bf-b"], ["bf-c", "bf-d", "bf-sub"]]));
    expect(moved.status).toBe(400);
    expect(pointers(moved)).toContain("/teams/1/players/2/playerId");
    const droppedMoved = await complete(
      "squads",
      first,
      result([
        ["bf-b", "bf-sub"],
        ["bf-c", "bf-d", "bf-a"],
      ]),
    );
    expect(droppedMoved.status).toBe(400);
    expect(pointers(droppedMoved)).toEqual(["/teams/1/players/2/playerId"]);
    await complete(
      "squads",
      first,
      result([
        ["bf-b", "bf-sub", "bf-a"],
        ["bf-c", "bf-d"],
      ]),
    ).expect(200);
    const second = await backfilled();
    await complete(
      "squads",
      second,
      result([
        ["bf-c", "bf-d"],
        ["bf-sub", "bf-b"],
      ]),
    ).expect(200);
  });
});
