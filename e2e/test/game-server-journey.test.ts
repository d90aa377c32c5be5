import {
  validateDeliveredMatchList,
  validateGetPlayerStatsResponseMessage,
  validateMatchSuggestionMessage,
  validateRestPlayerStats,
} from "@arena/contracts";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import {
  type Delivered,
  newTenant,
  PLATFORM_POLL,
  type RestClient,
  result,
  SocketClient,
  teamsOf,
} from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";

/**
 * A game server's whole journey through the gateway, with the four apps running as separate
 * processes: by REST, then again by WebSocket.
 */
let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ matchmakingIntervalMs: 200 });
});
afterAll(async () => platform?.close());

const game = { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1", "us-1"], targetWaitingTime: 1 };
const playerIds = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

async function fetchMatches(rest: RestClient, gameId: string, count: number): Promise<Delivered[]> {
  const all: Delivered[] = [];
  return eventually(async () => {
    const res = await rest.call("POST", `/games/${gameId}/matches`);
    expect(res.status).toBe(200);
    expect(validateDeliveredMatchList(res.body)).toBe(true);
    all.push(...res.body);
    return all.length >= count ? all : undefined;
  }, PLATFORM_POLL);
}

/** No player in two matches that are not failed: checked in stats' own database. */
async function playersInTwoMatches(): Promise<number> {
  const client = new pg.Client({ connectionString: platform.statsDatabaseUrl });
  await client.connect();
  try {
    const res = await client.query(
      `SELECT p.tenant_id, p.player_id FROM match_players p
         JOIN matches m ON m.tenant_id = p.tenant_id AND m.match_id = p.match_id
        WHERE m.status <> 'failed' AND p.dropped_at IS NULL
        GROUP BY p.tenant_id, p.player_id HAVING count(*) > 1`,
    );
    return res.rows.length;
  } finally {
    await client.end();
  }
}

describe("a game server's journey by REST", () => {
  it("logs in, configures a game, queues 20 players, confirms, completes, and sees stats and the leaderboard", async () => {
    const { rest } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/duel", game)).status).toBe(200);
    const ids = playerIds("rest", 20);
    const add = await rest.call("POST", "/games/duel/players", {
      players: ids.map((playerId) => ({ playerId })),
    });
    expect(add.status).toBe(204);
    // The same player again: 409, and nothing of that request is queued.
    const dup = await rest.call("POST", "/games/duel/players", {
      players: [{ playerId: "fresh" }, { playerId: ids[0] }],
    });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("CONFLICT");
    expect(
      (await rest.call("GET", "/games/duel/players")).body.some(
        (p: { playerId: string }) => p.playerId === "fresh",
      ),
    ).toBe(false);

    const matches = await fetchMatches(rest, "duel", 5);
    expect(matches).toHaveLength(5);
    expect(new Set(matches.flatMap((m) => teamsOf(m).flat())).size).toBe(20);

    // One match cannot go ahead: confirming it with a player to remove fails it instead.
    const [broken, played, ...rest3] = matches as [Delivered, Delivered, ...Delivered[]];
    const gone = teamsOf(broken)[0]![0]!;
    expect(
      (await rest.call("POST", `/games/duel/matches/${broken.id}/statuses/confirmed`, { remove: [gone] }))
        .status,
    ).toBe(204);
    expect((await rest.call("GET", `/games/duel/matches/${broken.id}`)).body.status).toBe("failed");
    const queue = (await rest.call("GET", "/games/duel/players")).body as Array<{
      playerId: string;
      state: string;
    }>;
    expect(queue.map((p) => p.playerId)).not.toContain(gone);
    // Its three other players wait again; the other four matches' players are still matched.
    expect(queue.filter((p) => p.state === "waiting")).toHaveLength(3);
    expect(queue.filter((p) => p.state === "matched")).toHaveLength(16);

    expect((await rest.call("POST", `/games/duel/matches/${played.id}/statuses/confirmed`)).status).toBe(204);
    const before = await rest.call("POST", "/games/duel/leaderboard", { count: 10 });
    const done = await rest.call(
      "POST",
      `/games/duel/matches/${played.id}/statuses/completed`,
      result(teamsOf(played)),
    );
    expect(done.status).toBe(200);
    expect(done.body.players).toHaveLength(4);
    // A replay of the same result counts once and answers the same.
    const replay = await rest.call(
      "POST",
      `/games/duel/matches/${played.id}/statuses/completed`,
      result(teamsOf(played)),
    );
    expect(replay.body).toEqual(done.body);

    const winner = teamsOf(played)[0]![0]!;
    const stats = await rest.call("GET", `/players/${winner}`);
    expect(stats.status).toBe(200);
    expect(validateRestPlayerStats(stats.body)).toBe(true);
    const after = await rest.call("POST", "/games/duel/leaderboard", { count: 10 });
    expect(after.status).toBe(200);
    expect(after.body.leaderboard.length).toBeGreaterThan(before.body.leaderboard?.length ?? 0);
    expect(after.body.leaderboard[0].ranking_points).toBeGreaterThan(0);
    expect(teamsOf(played)[0]).toContain(after.body.leaderboard[0].playerId);

    // Backfill: a player of a running match drops; a newly queued player takes the seat.
    const running = rest3[0]!;
    expect((await rest.call("POST", `/games/duel/matches/${running.id}/statuses/confirmed`)).status).toBe(
      204,
    );
    // The failed match's three requeued players leave first: with "sub" they would make a match of
    // four before the backfill request reaches the loop, and nobody would be left for the seat.
    for (const p of queue.filter((p) => p.state === "waiting")) {
      expect((await rest.call("DELETE", `/games/duel/players/${p.playerId}`)).status).toBe(204);
    }
    expect(
      (
        await rest.call("POST", "/games/duel/players", {
          players: [{ playerId: "sub", servers: ["eu-1", "us-1"] }],
        })
      ).status,
    ).toBe(204);
    const dropped = teamsOf(running)[1]![0]!;
    const request = await rest.call("POST", `/games/duel/matches/${running.id}/backfill`, {
      droppedPlayerId: dropped,
    });
    expect(request.status).toBe(201);
    const filled = await eventually(async () => {
      const res = await rest.call(
        "GET",
        `/games/duel/matches/${running.id}/backfill/${request.body.backfillingRequestId}`,
      );
      return res.body.state === "delivered" ? res.body : undefined;
    }, PLATFORM_POLL);
    expect(filled.replacement.playerId).toBe("sub");
    const roster = teamsOf(running).map((t, i) =>
      i === 1 ? [...t.filter((p) => p !== dropped), filled.replacement.playerId] : t,
    );
    expect(
      (await rest.call("POST", `/games/duel/matches/${running.id}/statuses/completed`, result(roster)))
        .status,
    ).toBe(200);
    expect(await playersInTwoMatches()).toBe(0);
  });

  it("fails a suggestion left unconfirmed past its time-out and matches its players again", async () => {
    const { rest } = await newTenant(platform);
    await rest.call("PUT", "/games/quick", { ...game, numPlayersPerTeam: 1, confirmationTimeout: 1 });
    await rest.call("POST", "/games/quick/players", { players: [{ playerId: "q1" }, { playerId: "q2" }] });
    const [first] = await fetchMatches(rest, "quick", 1);
    const second = await eventually(async () => {
      const res = await rest.call("POST", "/games/quick/matches");
      return res.body.length > 0 ? (res.body[0] as Delivered) : undefined;
    }, PLATFORM_POLL);
    expect(second.id).not.toBe(first!.id);
    expect((await rest.call("GET", `/games/quick/matches/${first!.id}`)).body.status).toBe("failed");
  });

  it("keeps a party that can never fit waiting while the rest of the queue is matched", async () => {
    const { rest } = await newTenant(platform);
    await rest.call("PUT", "/games/duel", game);
    await rest.call("POST", "/games/duel/players", {
      partyName: "trio",
      players: playerIds("trio", 3).map((playerId) => ({ playerId })),
    });
    await rest.call("POST", "/games/duel/players", {
      players: playerIds("solo", 4).map((playerId) => ({ playerId })),
    });
    const [match] = await fetchMatches(rest, "duel", 1);
    expect(teamsOf(match!).flat().sort()).toEqual(playerIds("solo", 4).sort());
    const waiting = (await rest.call("GET", "/games/duel/players")).body as Array<{
      playerId: string;
      state: string;
    }>;
    expect(
      waiting
        .filter((p) => p.state === "waiting")
        .map((p) => p.playerId)
        .sort(),
    ).toEqual(playerIds("trio", 3));
  });
});

describe("the same journey by WebSocket", () => {
  it("subscribes, queues 20 players, receives the suggestions as pushes, confirms, completes, reads stats", async () => {
    const { rest, token } = await newTenant(platform);
    await rest.call("PUT", "/games/duel", game);
    const socket = await SocketClient.connect(platform.gateway.url, token);
    try {
      const sub = await socket.send("subscribe", { gameIds: ["duel"] });
      expect(sub.error).toBeUndefined();
      expect(sub.action).toBe("subscribeResponse");
      const ids = playerIds("ws", 20);
      const added = await socket.send("addPlayer", {
        gameId: "duel",
        players: ids.map((playerId) => ({ playerId })),
      });
      expect(added.error).toBeUndefined();
      expect(added.payload.gameId).toBe("duel");
      expect(added.payload.players).toHaveLength(20);
      const again = await socket.send("addPlayer", { gameId: "duel", players: [{ playerId: ids[3] }] });
      expect(again.error?.code).toBe(409);

      const pushes = await socket.pushesOf("matchSuggestion", 5);
      for (const p of pushes) expect(validateMatchSuggestionMessage(p)).toBe(true);
      const matches = pushes.map((p) => p.payload.match as Delivered);
      expect(new Set(matches.flatMap((m) => teamsOf(m).flat())).size).toBe(20);
      // Pushed suggestions are delivered: a REST fetch finds nothing more.
      expect((await rest.call("POST", "/games/duel/matches")).body).toEqual([]);

      const match = matches[0]!;
      const ack = await socket.send("matchSuggestionDelivery", { gameId: "duel", matchId: match.id });
      expect(ack.error).toBeUndefined();
      const confirmed = await socket.send("updateMatchConfirmed", { gameId: "duel", matchId: match.id });
      expect(confirmed.error).toBeUndefined();
      expect(confirmed.payload).toEqual({ gameId: "duel", matchId: match.id });
      const completed = await socket.send("updateMatchCompleted", {
        gameId: "duel",
        matchId: match.id,
        ...result(teamsOf(match)),
      });
      expect(completed.error).toBeUndefined();
      expect(completed.payload.players).toHaveLength(4);

      const failed = await socket.send("updateMatchFailed", {
        gameId: "duel",
        matchId: matches[1]!.id,
        remove: [teamsOf(matches[1]!)[0]![0]],
      });
      expect(failed.error).toBeUndefined();
      expect(failed.payload.removed).toHaveLength(1);
      expect(failed.payload.requeued).toHaveLength(3);

      const winner = teamsOf(match)[0]![0]!;
      const stats = await socket.send("getPlayerStats", { playerId: winner });
      expect(validateGetPlayerStatsResponseMessage(stats)).toBe(true);
      const board = await rest.call("POST", "/games/duel/leaderboard", { count: 3 });
      expect(teamsOf(match)[0]).toContain(board.body.leaderboard[0].playerId);

      const players = await socket.send("getPlayers", { gameId: "duel" });
      expect(players.payload.gameId).toBe("duel");
      const removed = await socket.send("removePlayer", { gameId: "duel", playerId: "nobody" });
      expect(removed.error?.code).toBe(404);
    } finally {
      await socket.close();
    }
    expect(await playersInTwoMatches()).toBe(0);
  });

  it("offers a suggestion pushed to a connection that closed before acknowledging it to another", async () => {
    const { rest, token } = await newTenant(platform);
    await rest.call("PUT", "/games/duel", { ...game, numPlayersPerTeam: 1 });
    const first = await SocketClient.connect(platform.gateway.url, token);
    await first.send("subscribe", { gameIds: ["duel"] });
    await rest.call("POST", "/games/duel/players", { players: [{ playerId: "h1" }, { playerId: "h2" }] });
    const [pushed] = await first.pushesOf("matchSuggestion", 1);
    await first.close();
    const second = await SocketClient.connect(platform.gateway.url, token);
    try {
      await second.send("subscribe", { gameIds: ["duel"] });
      const [again] = await second.pushesOf("matchSuggestion", 1);
      expect(again!.payload.match.id).toBe(pushed!.payload.match.id);
    } finally {
      await second.close();
    }
  });
});
