import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ArenaApiError,
  type ArenaClient,
  type CallEvent,
  type CognitoTokens,
  createArenaClient,
  DeadlineError,
  NetworkError,
  type RetryEvent,
} from "@arena/client";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { provisionTenant, type TenantCredentials } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";

/**
 * The SDK's HTTP half against the real platform (four processes): every operation once with its
 * typed answer, a typed problem, login renewals across token expiry (the gateway issues 5-second
 * tokens here), SRP, a 429 storm, and a completion whose answer is lost and retried.
 */
const TOKEN_SECONDS = 5;
let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({
    matchmakingIntervalMs: 100,
    env: { gateway: { ID_TOKEN_SECONDS: String(TOKEN_SECONDS) } },
  });
});
afterAll(async () => platform?.close());

interface Recorded {
  calls: CallEvent[];
  retries: RetryEvent[];
}

function sdk(user: TenantCredentials, baseUrl = platform.gateway.url, extra: { userPoolId?: string } = {}) {
  const recorded: Recorded = { calls: [], retries: [] };
  const client = createArenaClient({
    baseUrl,
    clientId: user.clientId,
    username: user.username,
    password: user.password,
    ...(extra.userPoolId ? { flow: "USER_SRP_AUTH" as const, userPoolId: extra.userPoolId } : {}),
    hooks: {
      metrics: { call: (e) => recorded.calls.push(e), retry: (e) => recorded.retries.push(e) },
    },
    retry: { baseDelayMs: 20 },
  });
  return { client, recorded, tokens: client.tokens as CognitoTokens };
}

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${platform.gateway.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${platform.adminToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}

/** Polls getMatches until `count` matches were delivered (the matchmaker runs every 100 ms). */
async function deliveredMatches(client: ArenaClient, gameId: string, count: number) {
  const all: Awaited<ReturnType<ArenaClient["getMatches"]>> = [];
  return eventually(
    async () => {
      all.push(...(await client.getMatches({ gameId })));
      return all.length >= count ? all : undefined;
    },
    { timeoutMs: 10_000, everyMs: 50, what: `${count} delivered matches of ${gameId}` },
  );
}

const duel = { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"], targetWaitingTime: 1 };

describe("@arena/client over HTTP", () => {
  it("calls every operation once, each resolving to its typed answer", async () => {
    const user = await provisionTenant(platform);
    const { client, recorded } = sdk(user);
    const gameId = "duel";

    const game = await client.putGame({ gameId, body: duel });
    expect(game.gameId).toBe(gameId);
    expect((await client.getGame({ gameId })).numTeams).toBe(2);
    const ids = ["p1", "p2", "p3", "p4", "p5", "p6"];
    const added = await client.addPlayers({
      gameId,
      body: { players: ids.map((playerId) => ({ playerId })) },
    });
    expect(added.players.map((p) => p.playerId).sort()).toEqual(ids);
    expect((await client.getPlayers({ gameId })).length).toBeGreaterThan(0);
    const removed = await client.removePlayer({ gameId, playerId: "p6", query: { force: true } });
    expect(removed.playerId).toBe("p6");

    const [m1, m2] = await deliveredMatches(client, gameId, 2);
    await client.acknowledgeMatch({ gameId, matchId: m1!.id });
    expect((await client.getMatch({ gameId, matchId: m1!.id })).status).toBe("delivered");
    await client.confirmMatch({ gameId, matchId: m1!.id });
    const teams = m1!.teams.map((t, rank) => ({
      rank,
      players: t.players.map((p) => ({ playerId: p.playerId, score: 10 - rank })),
    }));
    const completed = await client.completeMatch({ gameId, matchId: m1!.id, body: { teams } });
    expect(completed.players).toHaveLength(2);

    await client.confirmMatch({ gameId, matchId: m2!.id, body: {} });
    const dropped = m2!.teams[0]!.players[0]!.playerId;
    const { backfillingRequestId } = await client.requestBackfill({
      gameId,
      matchId: m2!.id,
      body: { droppedPlayerId: dropped },
    });
    expect(backfillingRequestId).toMatch(/^[0-9a-f-]{36}$/);
    const backfill = await client.getBackfill({ gameId, matchId: m2!.id, backfillingRequestId });
    expect(backfill.droppedPlayerId).toBe(dropped);
    expect((await client.cancelBackfill({ gameId, matchId: m2!.id, backfillingRequestId })).state).toBe(
      "cancelled",
    );
    const failed = await client.failMatch({ gameId, matchId: m2!.id, body: {} });
    expect(failed).toHaveProperty("removed");

    const winner = teams[0]!.players[0]!.playerId;
    const stats = await client.getPlayerStats({ playerId: winner });
    expect(stats.seasons.length).toBeGreaterThan(0);
    expect((await client.getPlayerHistory({ playerId: winner, query: { limit: 5 } })).results).toHaveLength(
      1,
    );
    expect((await client.getLeaderboard({ gameId, body: { count: 10 } })).leaderboard.length).toBeGreaterThan(
      0,
    );
    const seasons = await client.listSeasons();
    const future = await client.startSeason({
      body: { startsAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(future.isCurrentSeason).toBe(false);
    await client.cancelSeason({ season: future.season });
    const next = `S${Number(seasons.currentSeason.slice(1)) + 1}`;
    expect((await client.resetSeason({ body: { seasonName: next } })).season).toBe(next);
    expect((await client.clearQueue({ gameId })).removed).toEqual(expect.any(Number));

    // One call event per operation, each a success on its first attempt (getMatches polled).
    const operations = new Set(recorded.calls.map((c) => c.operationId));
    expect(operations.size).toBe(22);
    expect(recorded.calls.every((c) => typeof c.status === "number" && c.status < 300)).toBe(true);
  });

  it("turns a refused request into an ArenaApiError with the field's pointer and the requestId", async () => {
    const { client } = sdk(await provisionTenant(platform));
    const error = await client.putGame({ gameId: "bad", body: { ...duel, numTeams: 0 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ArenaApiError);
    const problem = error as ArenaApiError;
    expect(problem.status).toBe(400);
    expect(problem.code).toBe("VALIDATION_FAILED");
    expect(problem.fields.map((f) => f.pointer)).toContain("/numTeams");
    expect(problem.requestId).toEqual(expect.any(String));
    const missing = await client.getGame({ gameId: "nope" }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND" });
    // A deadline shorter than any answer: DeadlineError; the caller's own abort: its reason.
    await expect(client.listSeasons({}, { deadlineMs: 1 })).rejects.toBeInstanceOf(DeadlineError);
    const stop = new AbortController();
    stop.abort(new Error("shutting down"));
    await expect(client.listSeasons({}, { signal: stop.signal })).rejects.toThrow("shutting down");
  });

  it("keeps working across token expiry, renewing with the refresh token, and after the keys are revoked", async () => {
    const { client, tokens, recorded } = sdk(await provisionTenant(platform));
    const started = Date.now();
    // Calls for a little over one token lifetime: the SDK renews at 80% of it, before it expires.
    while (Date.now() - started < (TOKEN_SECONDS + 1.5) * 1000) {
      await client.listSeasons();
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(tokens.counts.logins).toBe(1);
    expect(tokens.counts.refreshes).toBeGreaterThanOrEqual(1);
    expect(tokens.counts.refreshFailures).toBe(0);
    expect(recorded.retries.filter((r) => r.reason === "token")).toHaveLength(0);

    // Every token refused at once (an emergency rotation): one 401, rejected(), a fresh token, success.
    // Rotate just after a renewal, so the token in hand is not due for its own renewal by the next
    // call (a key pair can take seconds to make on a loaded machine, and a token renewed after the
    // rotation would be signed with the new key and never refused).
    const renewals = tokens.counts.refreshes;
    while (tokens.counts.refreshes === renewals) {
      await client.listSeasons();
      await new Promise((r) => setTimeout(r, 100));
    }
    await admin("POST", "/admin/signing-keys/rotate", { revokePrevious: true });
    await client.listSeasons();
    expect(recorded.retries.filter((r) => r.reason === "token")).toHaveLength(1);
  }, 30_000);

  it("logs in with SRP (the password never sent)", async () => {
    const user = await provisionTenant(platform);
    const { userPoolId } = await admin("GET", `/admin/tenants/${user.tenantId}`);
    const { client, tokens } = sdk(user, platform.gateway.url, { userPoolId });
    expect((await client.listSeasons()).seasons.length).toBeGreaterThan(0);
    expect(tokens.counts.logins).toBe(1);
  });

  it("rides out a 429 storm, honouring Retry-After", async () => {
    const user = await provisionTenant(platform);
    await admin("PATCH", `/admin/tenants/${user.tenantId}`, { limits: { requests: 4, windowSeconds: 1 } });
    const { client, recorded } = sdk(user);
    const answers = await Promise.all(Array.from({ length: 12 }, () => client.listSeasons()));
    expect(answers).toHaveLength(12);
    const waits = recorded.retries.filter((r) => r.status === 429);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((r) => r.delayMs >= 1000)).toBe(true);
  }, 30_000);

  it("retries a completion whose answer was lost, and stats count it once", async () => {
    const user = await provisionTenant(platform);
    const direct = sdk(user).client;
    await direct.putGame({ gameId: "duel", body: duel });
    await direct.addPlayers({ gameId: "duel", body: { players: [{ playerId: "a" }, { playerId: "b" }] } });
    const [match] = await deliveredMatches(direct, "duel", 1);
    await direct.confirmMatch({ gameId: "duel", matchId: match!.id });

    const proxy = await faultyProxy(
      platform.gateway.url,
      firstOnes(1, "POST", /\/statuses\/completed$/, "drop-answer"),
    );
    try {
      const { client, recorded } = sdk(user, proxy.url);
      const teams = match!.teams.map((t, rank) => ({
        rank,
        players: t.players.map((p) => ({ playerId: p.playerId, score: 1 })),
      }));
      const answer = await client.completeMatch({ gameId: "duel", matchId: match!.id, body: { teams } });
      expect(proxy.injected).toHaveLength(1);
      expect(recorded.retries.filter((r) => r.reason === "network")).toHaveLength(1);
      expect(answer.players.every((p) => p.matchesPlayed === 1)).toBe(true);
    } finally {
      await proxy.close();
    }
    const stats = await direct.getPlayerStats({ playerId: "a" });
    expect(stats.seasons[0]!.stats[0]!.matchesPlayed).toBe(1);
    expect((await direct.getPlayerHistory({ playerId: "a" })).results).toHaveLength(1);
  });

  it("retries a 502 for a read, and leaves a lost answer of an operation unsafe to repeat to the caller", async () => {
    const user = await provisionTenant(platform);
    const direct = sdk(user).client;
    await direct.putGame({ gameId: "duel", body: duel });
    const proxy = await faultyProxy(platform.gateway.url, (method, path) => {
      if (method === "GET" && path === "/games/duel/players") return "bad-gateway";
      if (method === "POST" && path === "/games/duel/players") return "drop-answer";
      return undefined;
    });
    try {
      const { client, recorded } = sdk(user, proxy.url);
      // Every attempt of the read answered 502: retried with backoff, then the typed problem.
      const error = await client.getPlayers({ gameId: "duel" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 502, code: "BAD_GATEWAY" });
      expect(recorded.retries.filter((r) => r.status === 502)).toHaveLength(4);
      // addPlayers is not repeated: a repeat would answer 409 for players the first attempt queued.
      await expect(
        client.addPlayers({ gameId: "duel", body: { players: [{ playerId: "x" }] } }),
      ).rejects.toBeInstanceOf(NetworkError);
      expect(recorded.retries.filter((r) => r.operationId === "addPlayers")).toHaveLength(0);
    } finally {
      await proxy.close();
    }
    expect((await direct.getPlayers({ gameId: "duel" })).map((p) => p.playerId)).toEqual(["x"]);
  });
});

/** What the proxy does to a request: pass it on, answer 502 itself, or let it through and cut the answer. */
type Fault = "bad-gateway" | "drop-answer" | undefined;

/**
 * A proxy to the gateway that injects faults: `fault(method, path)` decides for each request. With
 * "drop-answer" the request reaches the gateway, the whole answer is read, and the connection is
 * cut instead of passing it on: the server processed the request, the client never learns it.
 */
async function faultyProxy(target: string, fault: (method: string, path: string) => Fault) {
  const upstream = new URL(target);
  const injected: string[] = [];
  const server: Server = createServer((req, res) => {
    const chosen = fault(req.method ?? "", req.url ?? "");
    if (chosen) injected.push(`${chosen} ${req.method} ${req.url}`);
    if (chosen === "bad-gateway") {
      req.resume();
      res.writeHead(502, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ status: 502, code: "BAD_GATEWAY", title: "Bad gateway", detail: "injected" }));
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        if (chosen === "drop-answer") {
          answer.resume();
          answer.on("end", () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first `times` requests matching `method` and `path` get `fault`, the rest pass. */
function firstOnes(times: number, method: string, path: RegExp, fault: Fault) {
  let left = times;
  return (m: string, p: string): Fault => {
    if (m !== method || !path.test(p) || left === 0) return undefined;
    left -= 1;
    return fault;
  };
}
