import {
  validateDeliveredMatchList,
  validateFailMatchResponse,
  validateMatch,
  validatePlayerList,
  validateSubmitPlayersResponse,
} from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

let tenantSeq = 0;
/** A fresh tenant with one game: 2 teams of `size`, every match good enough at once. */
async function tenantWithGame(size = 2, extra: object = {}) {
  const tenant = `queue-${++tenantSeq}`;
  const gameId = "arena";
  const res = await h.as(tenant).put(`/games/${gameId}`, {
    numTeams: 2,
    numPlayersPerTeam: size,
    servers: ["eu-1", "us-1"],
    targetWaitingTime: 0,
    ...extra,
  });
  expect(res.status).toBe(200);
  return { tenant, gameId, api: h.as(tenant, "server") };
}

const players = (ids: string[], extra: object = {}) => ({
  players: ids.map((playerId) => ({ playerId, ...extra })),
});
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

async function states(api: ReturnType<Harness["as"]>, gameId: string) {
  const res = await api.get(`/games/${gameId}/players`);
  expect(res.status).toBe(200);
  expect(validatePlayerList(res.body)).toBe(true);
  return Object.fromEntries(
    (res.body as Array<{ playerId: string; state: string }>).map((p) => [p.playerId, p.state]),
  );
}

describe("the hosted queue", () => {
  it("queues players with 204, or answers them with Prefer: return=representation", async () => {
    const { gameId, api } = await tenantWithGame();
    const plain = await api.post(`/games/${gameId}/players`, players(["a"]));
    expect(plain.status).toBe(204);
    expect(plain.text).toBe("");
    const rich = await api
      .post(`/games/${gameId}/players`, {
        players: [{ reference: "ref-x" }, { playerId: "b", servers: ["eu-1"] }],
      })
      .set("prefer", "return=representation");
    expect(rich.status).toBe(201);
    expect(rich.headers["preference-applied"]).toBe("return=representation");
    expect(validateSubmitPlayersResponse(rich.body)).toBe(true);
    const [generated, b] = rich.body.players;
    expect(generated.playerId).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated).toMatchObject({ reference: "ref-x", state: "waiting" });
    expect(b).toEqual({ playerId: "b", reference: null, state: "waiting" });
    expect(await states(api, gameId)).toEqual({
      a: "waiting",
      [generated.playerId]: "waiting",
      b: "waiting",
    });
  });

  it("refuses a whole submission with 409 when one player is already queued, queueing none of it", async () => {
    const { gameId, api } = await tenantWithGame();
    await api.post(`/games/${gameId}/players`, players(["p1"])).expect(204);
    const res = await api.post(`/games/${gameId}/players`, players(["p2", "p1", "p3"]));
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain("p1");
    expect(await states(api, gameId)).toEqual({ p1: "waiting" });
  });

  it("keeps two overlapping submissions racing each other all or nothing: one wins whole, the other gets 409", async () => {
    for (let round = 0; round < 10; round++) {
      const { gameId, api } = await tenantWithGame();
      const [first, second] = await Promise.all([
        api.post(`/games/${gameId}/players`, players(["a", "b", "shared"])),
        api.post(`/games/${gameId}/players`, players(["shared", "d", "e"])),
      ]);
      expect([first.status, second.status].sort()).toEqual([204, 409]);
      const queued = Object.keys(await states(api, gameId)).sort();
      expect(queued).toEqual(first.status === 204 ? ["a", "b", "shared"] : ["d", "e", "shared"]);
      expect((first.status === 409 ? first : second).body.players).toEqual(["shared"]);
    }
  });

  it("names bad fields: a player listed twice, a server the game does not run on, an unknown game", async () => {
    const { gameId, api } = await tenantWithGame();
    const res = await api.post(`/games/${gameId}/players`, {
      players: [{ playerId: "x" }, { playerId: "x" }, { playerId: "y", servers: ["mars-1"] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
      "/players/1/playerId",
      "/players/2/servers/0",
    ]);
    expect((await api.post(`/games/nope/players`, players(["z"]))).status).toBe(404);
    expect(await states(api, gameId)).toEqual({});
  });

  it("matches the queue through the real matchmaker, delivers once, confirms, completes", async () => {
    const { gameId, api } = await tenantWithGame(2);
    await api.post(`/games/${gameId}/players`, players(ids("m", 20))).expect(204);
    await h.stats.loop.runOnce();
    const queued = await states(api, gameId);
    expect(Object.values(queued).filter((s) => s === "matched")).toHaveLength(20);

    const fetched = await api.post(`/games/${gameId}/matches`);
    expect(fetched.status).toBe(200);
    expect(validateDeliveredMatchList(fetched.body)).toBe(true);
    expect(fetched.body).toHaveLength(5);
    const everyone = fetched.body.flatMap((m: { teams: Array<{ players: Array<{ playerId: string }> }> }) =>
      m.teams.flatMap((t) => t.players.map((p) => p.playerId)),
    );
    expect(new Set(everyone).size).toBe(20);
    expect((await api.post(`/games/${gameId}/matches`)).body).toEqual([]);

    const match = fetched.body[0];
    expect(match.uuid).toBe(match.id);
    await api.post(`/games/${gameId}/matches/${match.id}/statuses/confirmed`).expect(204);
    // Confirming again is a no-op, not an error (a retried request).
    await api.post(`/games/${gameId}/matches/${match.id}/statuses/confirmed`, {}).expect(204);
    const got = await api.get(`/games/${gameId}/matches/${match.id}`);
    expect(validateMatch(got.body)).toBe(true);
    expect(got.body.status).toBe("confirmed");
    // Confirmed players left the queue: they may queue again.
    const left = await states(api, gameId);
    for (const team of match.teams) for (const p of team.players) expect(left[p.playerId]).toBeUndefined();

    const teams = match.teams.map((t: { players: Array<{ playerId: string }> }) =>
      t.players.map((p) => p.playerId),
    );
    const done = await api.post(`/games/${gameId}/matches/${match.id}/statuses/completed`, {
      teams: teams.map((players: string[], rank: number) => ({
        rank,
        players: players.map((playerId) => ({ playerId, score: 1 })),
      })),
    });
    expect(done.status).toBe(200);
    expect(done.body.players).toHaveLength(4);
    const board = await api.post(`/games/${gameId}/leaderboard`, { count: 10 });
    const top = board.body.leaderboard as Array<{ playerId: string; ranking_points: number }>;
    expect(top).toHaveLength(4);
    expect(
      top
        .slice(0, 2)
        .map((e) => e.playerId)
        .sort(),
    ).toEqual([...teams[0]].sort());
    expect(top[0]!.ranking_points).toBeGreaterThan(0);
  });

  it("fails a match confirmed with remove: the removed player leaves, the others wait with their first join time", async () => {
    const { gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(["r1", "r2"])).expect(204);
    const joined = await h.db.queuePlayer.findMany({ where: { gameId, playerId: { in: ["r1", "r2"] } } });
    h.clock.advance(5_000);
    await h.stats.loop.runOnce();
    const [match] = (await api.post(`/games/${gameId}/matches`)).body;
    await api.post(`/games/${gameId}/matches/${match.id}/statuses/confirmed`, { remove: ["r1"] }).expect(204);
    expect((await api.get(`/games/${gameId}/matches/${match.id}`)).body.status).toBe("failed");
    expect(await states(api, gameId)).toEqual({ r2: "waiting" });
    const r2 = await h.db.queuePlayer.findFirst({ where: { gameId, playerId: "r2" } });
    expect(r2?.joinedAt).toEqual(joined.find((p) => p.playerId === "r2")?.joinedAt);
    // Failing it again answers the first failure's lists.
    const again = await api
      .post(`/games/${gameId}/matches/${match.id}/statuses/failed`, {})
      .set("prefer", "return=representation");
    expect(again.status).toBe(200);
    expect(validateFailMatchResponse(again.body)).toBe(true);
    expect(again.body).toEqual({
      removed: [{ playerId: "r1", reference: null }],
      requeued: [{ playerId: "r2", reference: null }],
    });
  });

  it("names players of a status update that are not in the match", async () => {
    const { gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(["s1", "s2"])).expect(204);
    await h.stats.loop.runOnce();
    const [match] = (await api.post(`/games/${gameId}/matches`)).body;
    const res = await api.post(`/games/${gameId}/matches/${match.id}/statuses/failed`, {
      remove: ["s1", "ghost"],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ pointer: "/remove/1", detail: "is not a player of this match" }]);
    expect((await api.get(`/games/${gameId}/matches/${match.id}`)).body.status).toBe("delivered");
  });

  it("requeues the players of a suggestion left unconfirmed past its time-out", async () => {
    const { gameId, api } = await tenantWithGame(1, { confirmationTimeout: 30 });
    await api.post(`/games/${gameId}/players`, players(["t1", "t2"])).expect(204);
    await h.stats.loop.runOnce();
    const [match] = (await api.post(`/games/${gameId}/matches`)).body;
    h.clock.advance(29_000);
    await h.stats.loop.runOnce();
    expect((await api.get(`/games/${gameId}/matches/${match.id}`)).body.status).toBe("delivered");
    h.clock.advance(2_000);
    // The time-out requeues them; in the same round they are matched again, in a new match.
    await h.stats.loop.runOnce();
    expect((await api.get(`/games/${gameId}/matches/${match.id}`)).body.status).toBe("failed");
    const again = (await api.post(`/games/${gameId}/matches`)).body;
    expect(again).toHaveLength(1);
    expect(again[0].id).not.toBe(match.id);
  });

  it("keeps a party that can never fit waiting while the rest of the queue is matched", async () => {
    const { gameId, api } = await tenantWithGame(2);
    await api
      .post(`/games/${gameId}/players`, {
        partyName: "trio",
        players: ids("party", 3).map((playerId) => ({ playerId })),
      })
      .expect(204);
    await api.post(`/games/${gameId}/players`, players(ids("solo", 8))).expect(204);
    await h.stats.loop.runOnce();
    const s = await states(api, gameId);
    for (const id of ids("party", 3)) expect(s[id]).toBe("waiting");
    for (const id of ids("solo", 8)) expect(s[id]).toBe("matched");
  });

  it("keeps a party together in one team", async () => {
    const { gameId, api } = await tenantWithGame(2);
    await api
      .post(`/games/${gameId}/players`, {
        partyName: "duo",
        players: [{ playerId: "d1" }, { playerId: "d2" }],
      })
      .expect(204);
    await api.post(`/games/${gameId}/players`, players(["e1", "e2"])).expect(204);
    await h.stats.loop.runOnce();
    const [match] = (await api.post(`/games/${gameId}/matches`)).body;
    const teamOf = (id: string) =>
      match.teams.findIndex((t: { players: Array<{ playerId: string }> }) =>
        t.players.some((p) => p.playerId === id),
      );
    expect(teamOf("d1")).toBe(teamOf("d2"));
  });

  it("removes players: 404 unknown, 409 matched, force fails the match and requeues the rest", async () => {
    const { gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(["x1", "x2", "x3"])).expect(204);
    expect((await api.delete(`/games/${gameId}/players/nobody`)).status).toBe(404);
    await h.stats.loop.runOnce();
    const s = await states(api, gameId);
    const [matchedId] = Object.keys(s).filter((id) => s[id] === "matched");
    const [waitingId] = Object.keys(s).filter((id) => s[id] === "waiting");
    expect((await api.delete(`/games/${gameId}/players/${matchedId}`)).status).toBe(409);
    const removed = await api
      .delete(`/games/${gameId}/players/${waitingId}`)
      .set("prefer", "return=representation");
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ gameId, playerId: waitingId, reference: null });
    await api.delete(`/games/${gameId}/players/${matchedId}?force=true`).expect(204);
    const after = await states(api, gameId);
    expect(Object.keys(after)).toHaveLength(1);
    expect(Object.values(after)).toEqual(["waiting"]);
  });

  it("clears a game's queue: waiting players out, unconfirmed matches failed", async () => {
    const { gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(ids("c", 5))).expect(204);
    await h.stats.loop.runOnce();
    const res = await api.delete(`/games/${gameId}/queue`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: 5, failedMatches: 2 });
    expect(await states(api, gameId)).toEqual({});
    expect((await api.post(`/games/${gameId}/matches`)).body).toEqual([]);
  });

  it("expires players who waited longer than maxQueueSeconds", async () => {
    const { gameId, api } = await tenantWithGame(2, { maxQueueSeconds: 60, targetWaitingTime: 20 });
    await api.post(`/games/${gameId}/players`, players(["old"])).expect(204);
    h.clock.advance(30_000);
    await api.post(`/games/${gameId}/players`, players(["young"])).expect(204);
    h.clock.advance(31_000);
    await h.stats.loop.runOnce();
    expect(await states(api, gameId)).toEqual({ young: "waiting" });
    const metrics = await h.http.get("/metrics");
    expect(metrics.text).toMatch(/stats_players_expired_total\{game="arena"[^}]*\} [1-9]/);
  });

  it("never puts a player in two matches, even when two rounds store overlapping suggestions at once", async () => {
    const { tenant, gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(["o1", "o2", "o3"])).expect(204);
    const suggestion = (id: string, a: string, b: string) => ({
      id,
      server: "eu-1",
      matchScore: 1,
      teams: [a, b].map((ticketId) => ({ id: crypto.randomUUID(), tickets: [{ ticketId } as never] })),
    });
    const other = await h.startInstance();
    const [one, two] = await Promise.all([
      h.stats.matchLifecycle.storeSuggestions(
        tenant,
        gameId,
        [suggestion(crypto.randomUUID(), "o1", "o2")],
        60,
      ),
      other.stats.matchLifecycle.storeSuggestions(
        tenant,
        gameId,
        [suggestion(crypto.randomUUID(), "o2", "o3")],
        60,
      ),
    ]);
    expect(one.length + two.length).toBe(1);
    const s = await states(api, gameId);
    expect(Object.values(s).filter((x) => x === "matched")).toHaveLength(2);
    const rosters = await h.db.matchPlayer.groupBy({
      by: ["playerId"],
      where: { tenantId: tenant },
      _count: true,
    });
    for (const r of rosters) expect(r._count).toBe(1);
  });

  it("two loops at once form each match once", async () => {
    const { tenant, gameId, api } = await tenantWithGame(2);
    await api.post(`/games/${gameId}/players`, players(ids("l", 40))).expect(204);
    const other = await h.startInstance();
    await Promise.all([h.stats.loop.runOnce(), other.stats.loop.runOnce()]);
    await Promise.all([h.stats.loop.runOnce(), other.stats.loop.runOnce()]);
    const rows = await h.db.matchPlayer.findMany({ where: { tenantId: tenant } });
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.playerId)).size).toBe(40);
  });

  it("a round that fails while storing leaves every player waiting and no match behind", async () => {
    const { tenant, gameId, api } = await tenantWithGame(2);
    await api.post(`/games/${gameId}/players`, players(ids("k", 8))).expect(204);
    // The database refuses the roster insert halfway through the round's transaction.
    await h.db.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION fail_roster() RETURNS trigger AS $$
      BEGIN IF NEW.player_id = 'k5' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await h.db.$executeRawUnsafe(
      `CREATE TRIGGER fail_roster BEFORE INSERT ON match_players FOR EACH ROW EXECUTE FUNCTION fail_roster()`,
    );
    try {
      await h.stats.loop.runOnce();
    } finally {
      await h.db.$executeRawUnsafe(`DROP TRIGGER fail_roster ON match_players`);
    }
    expect(Object.values(await states(api, gameId))).toEqual(Array(8).fill("waiting"));
    expect(await h.db.match.count({ where: { tenantId: tenant } })).toBe(0);
    await h.stats.loop.runOnce();
    expect(Object.values(await states(api, gameId))).toEqual(Array(8).fill("matched"));
  });

  it("keeps the queue and the matches when Redis is flushed", async () => {
    const { gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(["f1", "f2", "f3"])).expect(204);
    await h.stats.loop.runOnce();
    const before = await states(api, gameId);
    const keys = await h.redis.keys(`${h.testRedis.keys.prefix}*`);
    if (keys.length > 0) await h.redis.del(...keys);
    expect(await states(api, gameId)).toEqual(before);
    const fetched = (await api.post(`/games/${gameId}/matches`)).body;
    expect(fetched).toHaveLength(1);
    await h.stats.loop.runOnce();
  });

  it("answers 404 for another tenant's match and 400 for a malformed match id", async () => {
    const { gameId, api } = await tenantWithGame(1);
    await api.post(`/games/${gameId}/players`, players(["v1", "v2"])).expect(204);
    await h.stats.loop.runOnce();
    const [match] = (await api.post(`/games/${gameId}/matches`)).body;
    const stranger = await tenantWithGame(1);
    expect((await stranger.api.get(`/games/${gameId}/matches/${match.id}`)).status).toBe(404);
    expect((await stranger.api.post(`/games/${gameId}/matches/${match.id}/statuses/confirmed`)).status).toBe(
      404,
    );
    const bad = await api.get(`/games/${gameId}/matches/not-a-uuid`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe("/matchId");
  });
});
