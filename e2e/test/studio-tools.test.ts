import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  validateKeepAliveMessage,
  validateMatchSuggestionMessage,
  validateServerResponse,
} from "@arena/contracts";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import createClient from "openapi-fetch";
import pg from "pg";
import {
  type Delivered,
  type Envelope,
  newTenant,
  PLATFORM_POLL,
  RestClient,
  result,
  teamsOf,
} from "../src/clients.js";
import { type AppProcess, type Platform, startPlatform } from "../src/platform.js";

/**
 * Tools a platform team already runs, against the whole platform as separate processes: Debian's
 * python3-websockets playing a game server's WebSocket flow, and PostgreSQL's own pg_dump and
 * pg_restore copying stats' database, with stats rebuilding its boards on the copy.
 */
const PYTHON = "/usr/bin/python3";
const run = promisify(execFile);

let platform: Platform;
beforeAll(async () => {
  // A keepAlive each second, so the Python client sees one within its flow.
  platform = await startPlatform({
    matchmakingIntervalMs: 200,
    env: { gateway: { WS_KEEPALIVE_MS: "1000" } },
  });
}, 180_000);
afterAll(async () => platform?.close());

const GAME = { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1", "us-1"], targetWaitingTime: 1 };

/**
 * A game server written with python-websockets (10.x API): the IdToken in the Authorization header,
 * subscribe, addPlayer for four players, the matchSuggestion push, confirm, complete with the teams
 * as pushed, then wait for a keepAlive. Prints every message the server sent, in order.
 */
const WEBSOCKETS_SCRIPT = `
import asyncio, json, sys
import websockets

uri, token, game = sys.argv[1:4]
players = json.loads(sys.argv[4])
received = []

async def flow():
    async with websockets.connect(uri, extra_headers={"Authorization": token}, open_timeout=10) as ws:
        async def send(action, message_id, payload):
            await ws.send(json.dumps({"action": action, "messageId": message_id, "payload": payload}))

        async def until(wanted):
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                received.append(message)
                if "error" in message or wanted(message):
                    return message

        answer = lambda message_id: lambda m: m.get("messageId") == message_id
        await send("subscribe", "s1", {"gameIds": [game]})
        await until(answer("s1"))
        await send("addPlayer", "a1", {"gameId": game, "players": [{"playerId": p} for p in players]})
        await until(answer("a1"))
        pushed = await until(lambda m: m["action"] == "matchSuggestion")
        match = pushed["payload"]["match"]
        await send("updateMatchConfirmed", "c1", {"gameId": game, "matchId": match["id"]})
        await until(answer("c1"))
        teams = [
            {"rank": rank, "players": [{"playerId": p["playerId"], "score": 20 - 10 * rank} for p in team["players"]]}
            for rank, team in enumerate(match["teams"])
        ]
        await send("updateMatchCompleted", "d1", {"gameId": game, "matchId": match["id"], "teams": teams})
        await until(answer("d1"))
        await until(lambda m: m["action"] == "keepAlive")

try:
    asyncio.run(flow())
finally:
    print(json.dumps(received))
`;

describe("python-websockets runs a game server's WebSocket flow with pushes", () => {
  it("subscribes, queues four players, gets the match pushed, confirms and completes it, and sees keepAlive", async () => {
    const { rest, token } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/py-2v2", GAME)).status).toBe(200);
    const players = ["py-1", "py-2", "py-3", "py-4"];
    const uri = `${platform.gateway.url.replace(/^http/, "ws")}/ws`;
    const { stdout } = await run(
      PYTHON,
      ["-c", WEBSOCKETS_SCRIPT, uri, token, "py-2v2", JSON.stringify(players)],
      {
        timeout: 120_000,
      },
    );
    const messages = JSON.parse(stdout) as Envelope[];
    expect(messages.filter((m) => m.error !== undefined)).toEqual([]);
    // Every server message carries a messageId: the request's on an answer, null on a push, its own on keepAlive.
    for (const message of messages) expect(message).toHaveProperty("messageId");
    const answer = (id: string) => messages.find((m) => m.messageId === id)!;

    expect(answer("s1")).toMatchObject({ action: "subscribeResponse", payload: { gameIds: ["py-2v2"] } });
    expect(answer("a1").action).toBe("addPlayerResponse");
    expect(
      answer("a1")
        .payload.players.map((p: { playerId: string }) => p.playerId)
        .sort(),
    ).toEqual(players);

    const pushed = messages.find((m) => m.action === "matchSuggestion")!;
    expect(validateMatchSuggestionMessage(pushed)).toBe(true);
    const match = pushed.payload.match as Delivered & { id: string };
    expect(teamsOf(match).flat().sort()).toEqual(players);
    expect(answer("c1")).toMatchObject({
      action: "updateMatchConfirmedResponse",
      payload: { matchId: match.id },
    });
    const completed = answer("d1");
    expect(validateServerResponse(completed)).toBe(true);
    expect(completed).toMatchObject({
      action: "updateMatchCompletedResponse",
      payload: { matchId: match.id },
    });
    expect(completed.payload.players).toHaveLength(4);

    const keepAlive = messages.find((m) => m.action === "keepAlive")!;
    expect(validateKeepAliveMessage(keepAlive)).toBe(true);
    expect(keepAlive.messageId).toEqual(expect.stringMatching(/^keepAlive-/));

    // What the Python client did is what the platform recorded: the match completed, the winners first.
    const stored = await rest.call("GET", `/games/py-2v2/matches/${match.id}`);
    expect(stored.body.status).toBe("completed");
    const board = await rest.call("POST", "/games/py-2v2/leaderboard", { count: 10 });
    expect(
      board.body.leaderboard
        .slice(0, 2)
        .map((e: { playerId: string }) => e.playerId)
        .sort(),
    ).toEqual(teamsOf(match)[0]!.sort());
  }, 180_000);
});

/** Plays one 2v2 match by REST to its completion; answers the board and the players' statistics. */
async function playAMatch(rest: RestClient, gameId: string, players: string[]) {
  expect((await rest.call("PUT", `/games/${gameId}`, GAME)).status).toBe(200);
  const queued = await rest.call("POST", `/games/${gameId}/players`, {
    players: players.map((playerId) => ({ playerId })),
  });
  expect(queued.status).toBe(204);
  const [match] = await eventually(async () => {
    const res = await rest.call("POST", `/games/${gameId}/matches`);
    return res.body.length > 0 ? (res.body as Delivered[]) : undefined;
  }, PLATFORM_POLL);
  const path = `/games/${gameId}/matches/${match!.id}/statuses`;
  expect((await rest.call("POST", `${path}/confirmed`)).status).toBe(204);
  expect((await rest.call("POST", `${path}/completed`, result(teamsOf(match!)))).status).toBe(200);
}

/** What a studio reads back: the board and each player's statistics, as answered. */
async function readBack(rest: RestClient, gameId: string, players: string[]) {
  const board = await rest.call("POST", `/games/${gameId}/leaderboard`, { count: 10 });
  const around = await rest.call("POST", `/games/${gameId}/leaderboard`, { count: 1, playerId: players[0] });
  const stats = await Promise.all(players.map((p) => rest.call("GET", `/players/${p}`)));
  return { board, around, stats };
}

describe("pg_dump and pg_restore of stats' database", () => {
  const dir = { path: "" };
  const copy = { url: "", name: "" };
  const started: AppProcess[] = [];
  afterAll(async () => {
    for (const app of started.reverse()) await app.stop().catch(() => {});
    if (dir.path) await rm(dir.path, { recursive: true, force: true });
    if (copy.name) await admin((c) => c.query(`DROP DATABASE IF EXISTS "${copy.name}" WITH (FORCE)`));
  });

  /** A query on the server's maintenance database (CREATE/DROP DATABASE). */
  async function admin(query: (client: pg.Client) => Promise<unknown>) {
    const url = new URL(platform.statsDatabaseUrl);
    url.pathname = "/postgres";
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await query(client);
    } finally {
      await client.end();
    }
  }

  it("restores into a fresh database where stats, on an empty Redis prefix, rebuilds the same boards", async () => {
    const { rest, token } = await newTenant(platform);
    const players = ["pg-1", "pg-2", "pg-3", "pg-4"];
    await playAMatch(rest, "pg-2v2", players);
    const original = await readBack(rest, "pg-2v2", players);
    expect(original.board.status).toBe(200);
    expect(original.board.body.leaderboard).toHaveLength(4);

    dir.path = await mkdtemp(join(tmpdir(), "arena-pg-dump-"));
    const dump = join(dir.path, "stats.dump");
    await run("pg_dump", ["-Fc", "--no-owner", "-f", dump, platform.statsDatabaseUrl], { timeout: 60_000 });
    copy.name = `arena_e2e_stats_copy_${randomBytes(4).toString("hex")}`;
    await admin((c) => c.query(`CREATE DATABASE "${copy.name}"`));
    const url = new URL(platform.statsDatabaseUrl);
    url.pathname = `/${copy.name}`;
    copy.url = url.toString();
    await run("pg_restore", ["--no-owner", "--exit-on-error", "-d", copy.url, dump], { timeout: 60_000 });

    // Stats on the copy, with a Redis key prefix nothing has written to, behind a gateway of its own.
    const prefix = `arena_e2e_copy_${randomBytes(4).toString("hex")}:`;
    const stats = await platform.startReplica(platform.stats, {
      DATABASE_URL: copy.url,
      REDIS_KEY_PREFIX: prefix,
    });
    started.push(stats);
    const gateway = await platform.startReplica(platform.gateway, { STATS_URL: stats.url });
    started.push(gateway);
    const onCopy = new RestClient(gateway.url, token);

    const restored = await readBack(onCopy, "pg-2v2", players);
    expect(restored.board).toEqual(original.board);
    expect(restored.around).toEqual(original.around);
    expect(restored.stats).toEqual(original.stats);
    // The board came from PostgreSQL: the copy's stats rebuilt it (its Redis prefix was empty).
    const metrics = await (await fetch(`${stats.url}/metrics`)).text();
    const rebuilds = /^stats_leaderboard_rebuilds_total(?:\{[^}]*\})? (\d+)/m.exec(metrics);
    expect(Number(rebuilds?.[1] ?? 0)).toBeGreaterThanOrEqual(1);
  }, 180_000);
});

describe("openapi-fetch calls the API its document describes", () => {
  it("configures a game, queues a party and a player, and reads the queue back through the document's paths", async () => {
    const { token } = await newTenant(platform);
    const document = (await (await fetch(`${platform.gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    // The paths called below are the document's own, so a renamed path fails here, not in a studio.
    for (const [path, method] of [
      ["/games/{gameId}", "put"],
      ["/games/{gameId}/players", "post"],
      ["/games/{gameId}/players", "get"],
    ] as const) {
      expect(document.paths[path]?.[method]).toBeDefined();
    }
    const api = createClient<never>({ baseUrl: platform.gateway.url, headers: { Authorization: token } });
    const call = api as unknown as Record<
      "PUT" | "POST" | "GET",
      (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>
    >;
    const gameId = "fetch-2v2";
    const configured = await call.PUT("/games/{gameId}", {
      params: { path: { gameId } },
      body: { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1"], targetWaitingTime: 30 },
    });
    expect(configured.response.status).toBe(200);
    expect(configured.data).toMatchObject({ numTeams: 2, numPlayersPerTeam: 2 });
    const queued = await call.POST("/games/{gameId}/players", {
      params: { path: { gameId } },
      headers: { Prefer: "return=representation" },
      body: {
        players: [
          { playerId: "f-1", partyName: "duo" },
          { playerId: "f-2", partyName: "duo" },
          { playerId: "f-3" },
        ],
      },
    });
    expect(queued.response.status).toBe(201);
    const listed = await call.GET("/games/{gameId}/players", { params: { path: { gameId } } });
    expect(listed.response.status).toBe(200);
    expect((listed.data as Array<{ playerId: string }>).map((p) => p.playerId).sort()).toEqual([
      "f-1",
      "f-2",
      "f-3",
    ]);
    const refused = await call.PUT("/games/{gameId}", {
      params: { path: { gameId } },
      body: { numTeams: 0 },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: "VALIDATION_FAILED" });
  });
});
