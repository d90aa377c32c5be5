import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, createMatch, gameConfig, type Harness, playMatch, result } from "./harness.js";

/**
 * Every number and id a client sends is bounded by the contracts' schemas: what PostgreSQL cannot
 * hold or the service cannot afford is a 400 naming the field, and nothing of it is stored.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const NUL = "a\u0000b";
const LONE_SURROGATE = "\ud800";

let tenantSeq = 0;
async function tenantWithGame(): Promise<{ tenant: string; api: ReturnType<Harness["as"]> }> {
  const tenant = `bounds-${++tenantSeq}`;
  await h.as(tenant).put("/games/g", gameConfig()).expect(200);
  return { tenant, api: h.as(tenant, "server") };
}

/** The field errors of a 400 problem. */
async function refused(test: PromiseLike<{ status: number; body: { errors?: unknown[] } }>) {
  const res = await test;
  expect(res.status).toBe(400);
  return res.body.errors;
}

describe("a game's configuration", () => {
  it.each([
    ["numTeams in the millions", { numTeams: 1_000_000 }, "/numTeams"],
    ["numTeams near 10^9", { numTeams: 999_999_999 }, "/numTeams"],
    ["numPlayersPerTeam in the millions", { numPlayersPerTeam: 1_000_000 }, "/numPlayersPerTeam"],
    ["a match above 1000 players", { numTeams: 2, numPlayersPerTeam: 501 }, "/numPlayersPerTeam"],
    ["a confirmationTimeout past any timestamp", { confirmationTimeout: 1e15 }, "/confirmationTimeout"],
    ["a confirmationTimeout above an hour", { confirmationTimeout: 3601 }, "/confirmationTimeout"],
    ["a targetWaitingTime above a day", { targetWaitingTime: 86_401 }, "/targetWaitingTime"],
    ["a maxWaitingTime of 1e300", { maxWaitingTime: 1e300 }, "/maxWaitingTime"],
    ["a ratingTolerance of 1e300", { ratingTolerance: 1e300 }, "/ratingTolerance"],
    ["a maxQueueSeconds above a day", { maxQueueSeconds: 86_401 }, "/maxQueueSeconds"],
    ["a backfillTimeout above an hour", { backfillTimeout: 3601 }, "/backfillTimeout"],
    ["a server name with NUL", { servers: [NUL] }, "/servers/0"],
    ["a server name with a lone surrogate", { servers: [LONE_SURROGATE] }, "/servers/0"],
  ])("refuses %s with a 400 at the field and stores nothing", async (_, change, pointer) => {
    const tenant = `game-${++tenantSeq}`;
    const errors = await refused(h.as(tenant).put("/games/g", { ...gameConfig(), ...change }));
    expect(errors).toEqual([{ pointer, detail: expect.any(String) }]);
    await h.as(tenant).get("/games/g").expect(404);
  });

  it("accepts the largest match, 1000 players, in any shape", async () => {
    for (const [numTeams, numPlayersPerTeam] of [
      [1000, 1],
      [1, 1000],
      [10, 100],
    ]) {
      const res = await h.as("largest").put("/games/g", gameConfig(numTeams, numPlayersPerTeam)).expect(200);
      expect(res.body).toMatchObject({ numTeams, numPlayersPerTeam });
    }
  });
});

describe("ids and text", () => {
  it.each([
    ["a playerId", { players: [{ playerId: NUL }] }, "/players/0/playerId"],
    ["a reference", { players: [{ playerId: "p", reference: NUL }] }, "/players/0/reference"],
    ["a partyName", { partyName: NUL, players: [{ playerId: "p" }] }, "/partyName"],
    ["a server name", { players: [{ playerId: "p", servers: [NUL] }] }, "/players/0/servers/0"],
  ])("refuses NUL in %s with a 400 and queues nobody", async (_, body, pointer) => {
    const { api } = await tenantWithGame();
    expect(await refused(api.post("/games/g/players", body))).toEqual([
      { pointer, detail: expect.any(String) },
    ]);
    expect((await api.get("/games/g/players").expect(200)).body).toEqual([]);
  });

  it("refuses a lone surrogate instead of storing U+FFFD, a different id than the one sent", async () => {
    const { api } = await tenantWithGame();
    for (const body of [
      { players: [{ playerId: LONE_SURROGATE }] },
      { players: [{ playerId: `x${LONE_SURROGATE}`, reference: "r" }] },
      { players: [{ playerId: "p", reference: `\udc00` }] },
      { partyName: LONE_SURROGATE, players: [{ playerId: "p" }] },
    ]) {
      const errors = await refused(api.post("/games/g/players", body));
      expect(errors).toHaveLength(1);
    }
    expect((await api.get("/games/g/players").expect(200)).body).toEqual([]);
    // A character outside the BMP (a surrogate pair) is one whole character and is kept as sent.
    await api.post("/games/g/players", { players: [{ playerId: "p\u{1F600}" }] }).expect(204);
    expect((await api.get("/games/g/players").expect(200)).body).toEqual([
      { playerId: "p\u{1F600}", state: "waiting", reference: null },
    ]);
  });

  it("refuses NUL in path parameters with a 400 naming the parameter", async () => {
    const { api } = await tenantWithGame();
    expect(await refused(api.delete("/games/g/players/a%00b"))).toEqual([
      { pointer: "/playerId", detail: expect.any(String) },
    ]);
    expect(await refused(api.get("/players/a%00b"))).toEqual([
      { pointer: "/playerId", detail: expect.any(String) },
    ]);
    expect(await refused(api.get("/players/a%00b/history"))).toEqual([
      { pointer: "/playerId", detail: expect.any(String) },
    ]);
  });

  it("refuses NUL in match bodies: status updates, results and backfill requests", async () => {
    const { tenant, api } = await tenantWithGame();
    const matchId = await createMatch(h, tenant, "g", [["a"], ["b"]]);
    const base = `/games/g/matches/${matchId}`;
    expect(await refused(api.post(`${base}/statuses/failed`, { remove: [NUL] }))).toEqual([
      { pointer: "/remove/0", detail: expect.any(String) },
    ]);
    expect(
      await refused(api.post(`${base}/statuses/completed`, { ...result([["a"], ["b"]]), server: NUL })),
    ).toEqual([{ pointer: "/server", detail: expect.any(String) }]);
    expect(
      await refused(api.post(`${base}/backfill`, { droppedPlayerId: "a", backfillingRequestId: NUL })),
    ).toEqual([{ pointer: "/backfillingRequestId", detail: expect.any(String) }]);
    expect(await refused(api.get(`${base}/backfill/a%00b`))).toEqual([
      { pointer: "/backfillingRequestId", detail: expect.any(String) },
    ]);
    expect((await api.get(base).expect(200)).body.status).toBe("confirmed");
  });
});

describe("ranks and seasons", () => {
  it("refuses a team rank beyond PostgreSQL's integer and leaves the match unreported", async () => {
    const { tenant, api } = await tenantWithGame();
    const matchId = await createMatch(h, tenant, "g", [["a"], ["b"]]);
    const path = `/games/g/matches/${matchId}/statuses/completed`;
    expect(await refused(api.post(path, result([["a"], ["b"]], [0, 2 ** 31])))).toEqual([
      { pointer: "/teams/1/rank", detail: "must be <= 2147483647" },
    ]);
    expect((await api.get(`/games/g/matches/${matchId}`).expect(200)).body.status).toBe("confirmed");
    await api.post(path, result([["a"], ["b"]], [0, 2 ** 31 - 1])).expect(200);
  });

  it("refuses a fromRank beyond int32 in a leaderboard body", async () => {
    const { api } = await tenantWithGame();
    for (const fromRank of [1e308, 2 ** 31]) {
      expect(await refused(api.post("/games/g/leaderboard", { count: 10, fromRank }))).toEqual([
        { pointer: "/fromRank", detail: "must be <= 2147483647" },
      ]);
    }
    const last = await api.post("/games/g/leaderboard", { count: 10, fromRank: 2 ** 31 - 1 }).expect(200);
    expect(last.body).toEqual({ leaderboard: [], season: "S1" });
  });

  it("refuses a season number beyond int32 instead of answering Sundefined or ignoring it", async () => {
    const { api } = await tenantWithGame();
    for (const season of ["S99999999999", "S2147483648"]) {
      expect(await refused(api.post("/games/g/leaderboard", { count: 10, season }))).toEqual([
        { pointer: "/season", detail: expect.any(String) },
      ]);
      expect(await refused(api.get(`/players/a/history?season=${season}`))).toEqual([
        { pointer: "/season", detail: expect.any(String) },
      ]);
    }
    // The largest season name is read as its number: not started yet, and said so by name.
    const future = await api.post("/games/g/leaderboard", { count: 10, season: "S2147483647" }).expect(404);
    expect(future.body.detail).toBe("Season S2147483647 has not started");
  });
});

describe("the history cursor", () => {
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

  it.each([
    ["a match id with NUL", ["2026-01-01T00:00:00.000Z", NUL]],
    ["a match id that is no match id", ["2026-01-01T00:00:00.000Z", "x".repeat(300)]],
    [
      "a time before PostgreSQL's timestamps",
      ["-010000-01-01T00:00:00.000Z", "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11"],
    ],
  ])("refuses a forged cursor with %s as a 400 at /cursor", async (_, value) => {
    const { tenant, api } = await tenantWithGame();
    await playMatch(h, tenant, "g", [["a"], ["b"]]);
    expect(await refused(api.get(`/players/a/history?cursor=${cursor(value)}`))).toEqual([
      { pointer: "/cursor", detail: "is not a cursor this service issued" },
    ]);
  });
});
