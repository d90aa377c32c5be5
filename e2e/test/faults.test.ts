import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { eventually, freePort, keptAliveClients } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type pg from "pg";
import {
  type Delivered,
  newTenant,
  PLATFORM_POLL,
  type RestClient,
  result,
  teamsOf,
} from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from "../src/private-services.js";
import { queryStats } from "../src/stats-database.js";

/**
 * Faults with the built apps as real processes: Redis restarted empty, the license service gone,
 * PostgreSQL restarted, a replica stopped under load, a stats replica killed mid-tick. The platform
 * runs on a Redis server and a PostgreSQL cluster of this file's own (restarting the shared ones
 * would break the suites running next to it), with two stats replicas that both run the loop.
 */

const LEASE_MS = 1500;
const GRACE_SECONDS = 6;

/**
 * Stands between one stats replica and the matchmaker: forwards every call, records it, and can
 * hold one call unanswered, which keeps that replica inside a tick with the game's lock taken.
 */
interface MatchmakerProxy {
  url: string;
  target: string;
  calls: Array<{ at: number; body: string }>;
  close(): Promise<void>;
}

let holdRule:
  | { matches: (body: string) => boolean; onHold: (replica: number, at: number) => void }
  | undefined;

async function startProxy(replica: number): Promise<MatchmakerProxy> {
  const port = await freePort();
  const proxy: MatchmakerProxy & { server?: Server } = {
    url: `http://127.0.0.1:${port}`,
    target: "",
    calls: [],
    async close() {
      proxy.server?.closeAllConnections();
      await new Promise((r) => proxy.server?.close(r));
    },
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const at = Date.now();
    proxy.calls.push({ at, body });
    const rule = holdRule;
    if (rule?.matches(body)) {
      holdRule = undefined;
      rule.onHold(replica, at);
      return; // never answered: the replica's tick waits here, holding the game's lock
    }
    try {
      const answer = await fetch(`${proxy.target}${req.url}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-request-id": String(req.headers["x-request-id"] ?? ""),
        },
        body,
      });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
      res.end(await answer.text());
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  };
  proxy.server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => proxy.server!.listen(port, "127.0.0.1", r));
  return proxy;
}

let redis: PrivateRedis;
let postgres: PrivatePostgres;
let proxies: MatchmakerProxy[] = [];
let platform: Platform;

beforeAll(async () => {
  [redis, postgres, ...proxies] = await Promise.all([
    startPrivateRedis(),
    startPrivatePostgres(),
    startProxy(0),
    startProxy(1),
  ]);
  platform = await startPlatform({
    redisUrl: redis.url,
    databaseServerUrl: postgres.url,
    statsReplicas: 2,
    matchmakingIntervalMs: 100,
    env: {
      // Validate every second; serve on the last lease for GRACE_SECONDS once that fails.
      matchmaker: { LICENSE_REFRESH_SECONDS: "1", LICENSE_GRACE_SECONDS: String(GRACE_SECONDS) },
      stats: { MATCHMAKING_LOCK_MS: String(LEASE_MS), OUTBOX_INTERVAL_MS: "200" },
      gateway: { TENANT_RATE_LIMIT: "1000000" },
    },
    statsEnv: (replica) => ({ MATCHMAKER_URL: proxies[replica]!.url }),
  });
  for (const proxy of proxies) proxy.target = platform.matchmaker.url;
});

afterAll(async () => {
  await platform?.close();
  await Promise.all(proxies.map((p) => p.close()));
  await redis?.close();
  await postgres?.close();
});

const players = (...ids: string[]) => ({ players: ids.map((playerId) => ({ playerId })) });
const duel = { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"], confirmationTimeout: 600 };

async function fetchMatches(rest: RestClient, gameId: string, count: number): Promise<Delivered[]> {
  const all: Delivered[] = [];
  return eventually(async () => {
    const res = await rest.call("POST", `/games/${gameId}/matches`);
    if (res.status === 200) all.push(...res.body);
    return all.length >= count ? all : undefined;
  }, PLATFORM_POLL);
}

const statsQuery = <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
  queryStats<T>(platform, sql, params);

/** No player in two matches that are not failed: checked in stats' own database. */
async function playersInTwoMatches(): Promise<number> {
  const rows = await statsQuery(
    `SELECT p.tenant_id, p.player_id FROM match_players p
       JOIN matches m ON m.tenant_id = p.tenant_id AND m.match_id = p.match_id
      WHERE m.status <> 'failed' AND p.dropped_at IS NULL
      GROUP BY p.tenant_id, p.player_id HAVING count(*) > 1`,
  );
  return rows.length;
}

const status = async (url: string) => (await fetch(url)).status;
const ready = (url: string) => eventually(async () => (await status(`${url}/readyz`)) === 200, PLATFORM_POLL);
const allApps = () => [platform.license, platform.matchmaker, ...platform.statsReplicas, platform.gateway];

describe("Redis restarted empty", () => {
  it("loses no result, rebuilds the leaderboard from PostgreSQL, keeps the queue and unconfirmed matches", async () => {
    const { rest } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/board", duel)).status).toBe(200);
    expect(
      (await rest.call("POST", "/games/board/players", players("r0", "r1", "r2", "r3", "r4", "r5"))).status,
    ).toBe(204);
    const [m1, m2, open] = (await fetchMatches(rest, "board", 3)) as [Delivered, Delivered, Delivered];
    for (const m of [m1, m2]) {
      expect((await rest.call("POST", `/games/board/matches/${m.id}/statuses/confirmed`)).status).toBe(204);
      expect(
        (await rest.call("POST", `/games/board/matches/${m.id}/statuses/completed`, result(teamsOf(m))))
          .status,
      ).toBe(200);
    }
    // One player waits alone (a duel needs two); `open` stays suggested, unconfirmed.
    expect((await rest.call("POST", "/games/board/players", players("w0"))).status).toBe(204);
    const winner = teamsOf(m1)[0]![0]!;
    const board = await rest.call("POST", "/games/board/leaderboard", { count: 10 });
    expect(board.status).toBe(200);
    expect(board.body.leaderboard).toHaveLength(4);
    const winnerStats = await rest.call("GET", `/players/${winner}`);
    expect(winnerStats.status).toBe(200);
    const rebuildsBefore = await rebuilds();

    await redis.restartEmpty();

    for (const app of [...platform.statsReplicas, platform.gateway]) await ready(app.url);
    // Every result is in PostgreSQL: the stats read the same, and the board is rebuilt from them.
    // The gateway may answer from its leaderboard cache for up to LEADERBOARD_CACHE_MS; the read
    // that reaches stats after that finds Redis empty and rebuilds.
    const boardAfter = await eventually(async () => {
      const res = await rest.call("POST", "/games/board/leaderboard", { count: 10 });
      return res.status === 200 && (await rebuilds()) > rebuildsBefore ? res.body : undefined;
    }, PLATFORM_POLL);
    expect(boardAfter).toEqual(board.body);
    expect((await rest.call("GET", `/players/${winner}`)).body).toEqual(winnerStats.body);
    // The queue is PostgreSQL's too: the lone player still waits, the open match still stands.
    const queue = (await rest.call("GET", "/games/board/players")).body as Array<{
      playerId: string;
      state: string;
    }>;
    expect(queue.filter((p) => p.state === "waiting").map((p) => p.playerId)).toEqual(["w0"]);
    expect(
      queue
        .filter((p) => p.state === "matched")
        .map((p) => p.playerId)
        .sort(),
    ).toEqual(teamsOf(open).flat().sort());
    expect((await rest.call("GET", `/games/board/matches/${open.id}`)).body.status).toBe("delivered");
    // ...and the loop, whose locks went with Redis, matches the waiting player with a newcomer.
    expect((await rest.call("POST", "/games/board/players", players("w1"))).status).toBe(204);
    const [late] = await fetchMatches(rest, "board", 1);
    expect(teamsOf(late!).flat().sort()).toEqual(["w0", "w1"]);
    // The open match goes ahead, and its result lands on the rebuilt board.
    expect((await rest.call("POST", `/games/board/matches/${open.id}/statuses/confirmed`)).status).toBe(204);
    expect(
      (await rest.call("POST", `/games/board/matches/${open.id}/statuses/completed`, result(teamsOf(open))))
        .status,
    ).toBe(200);
    const boardLast = await rest.call("POST", "/games/board/leaderboard", { count: 10 });
    expect(boardLast.body.leaderboard).toHaveLength(6);
    expect(await playersInTwoMatches()).toBe(0);
  });
});

async function rebuilds(): Promise<number> {
  let total = 0;
  for (const stats of platform.statsReplicas) {
    const text = await (await fetch(`${stats.url}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith("stats_leaderboard_rebuilds_total"));
    total += Number(line?.split(" ")[1] ?? 0);
  }
  return total;
}

describe("the license service stopped", () => {
  const licenseStatus = async () => {
    const text = await (await fetch(`${platform.matchmaker.url}/metrics`)).text();
    return /matchmaker_license_status\{[^}]*status="(\w+)"[^}]*\} 1\b/.exec(text)?.[1];
  };
  const directMatch = () =>
    fetch(`${platform.matchmaker.url}/matchmaking/basic`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        game_mode: { numTeams: 2, numPlayersPerTeam: 1 },
        tickets: ["a", "b"].map((ticketId) => ({
          ticketId,
          joinTimestamp: Math.floor(Date.now() / 1000) - 5,
          rating: 1500,
          servers: ["eu-1"],
        })),
      }),
    });

  it("keeps matching through the grace period, refuses with 503 after it, and recovers when it is back", async () => {
    const { rest } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/lic", duel)).status).toBe(200);
    expect(await licenseStatus()).toBe("valid");

    await platform.license.stop();
    const stoppedAt = Date.now();
    await eventually(async () => (await licenseStatus()) === "grace", { ...PLATFORM_POLL, timeoutMs: 5000 });
    // Within the grace period: direct calls and the hosted queue's loop are served.
    const direct = await directMatch();
    expect(direct.status).toBe(200);
    expect(((await direct.json()) as { matchSuggestions: unknown[] }).matchSuggestions).toHaveLength(1);
    expect(await status(`${platform.matchmaker.url}/readyz`)).toBe(200);
    expect((await rest.call("POST", "/games/lic/players", players("l0", "l1"))).status).toBe(204);
    const [match] = await fetchMatches(rest, "lic", 1);
    expect(teamsOf(match!).flat().sort()).toEqual(["l0", "l1"]);
    expect(Date.now() - stoppedAt).toBeLessThan(GRACE_SECONDS * 1000);

    // The grace period ends: the matchmaker says why (503), and is not ready.
    await eventually(async () => (await licenseStatus()) === "expired", {
      ...PLATFORM_POLL,
      timeoutMs: GRACE_SECONDS * 1000 + 3000,
    });
    const refused = await directMatch();
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { code: string }).code).toBe("LICENSE_UNAVAILABLE");
    expect(await status(`${platform.matchmaker.url}/readyz`)).toBe(503);

    await platform.license.restart();
    await ready(platform.matchmaker.url);
    expect((await directMatch()).status).toBe(200);
    expect(await licenseStatus()).toBe("valid");
  });
});

describe("PostgreSQL restarted", () => {
  it("answers 503 and is not ready during the outage, then the same processes serve again", async () => {
    const { rest } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/pg", duel)).status).toBe(200);
    expect((await rest.call("POST", "/games/pg/players", players("p0"))).status).toBe(204);
    const pids = allApps().map((app) => app.child.pid);

    await postgres.stop();
    try {
      const outage: string[] = [];
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await rest.call(method, path, body);
        outage.push(`${method} ${path}: ${res.status} ${res.body?.code} ${res.body?.detail}`);
      };
      const deadline = Date.now() + 2500;
      while (Date.now() < deadline) {
        await call("GET", "/games/pg/players");
        await call("POST", "/games/pg/players", players(`o${outage.length}`));
        await call("GET", "/players/p0");
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(outage.filter((o) => !o.includes(": 503 SERVICE_UNAVAILABLE "))).toEqual([]);
      for (const app of [...platform.statsReplicas, platform.gateway]) {
        expect(await status(`${app.url}/readyz`)).toBe(503);
        expect(await status(`${app.url}/livez`)).toBe(200);
      }
    } finally {
      await postgres.start();
    }

    for (const app of allApps()) await ready(app.url);
    expect(allApps().map((app) => app.child.pid)).toEqual(pids);
    expect(allApps().every((app) => app.child.exitCode === null)).toBe(true);
    // Writes and reads as before, and the loop matches again.
    expect((await rest.call("POST", "/games/pg/players", players("p1"))).status).toBe(204);
    const [match] = await fetchMatches(rest, "pg", 1);
    expect(teamsOf(match!).flat().sort()).toEqual(["p0", "p1"]);
    expect((await rest.call("POST", `/games/pg/matches/${match!.id}/statuses/confirmed`)).status).toBe(204);
    const done = await rest.call(
      "POST",
      `/games/pg/matches/${match!.id}/statuses/completed`,
      result(teamsOf(match!)),
    );
    expect(done.status).toBe(200);
    expect((await rest.call("GET", "/players/p0")).status).toBe(200);
  });
});

describe("SIGTERM under load", () => {
  it("answers every request on its kept-alive connections, resets none, and exits 0 in time", async () => {
    const shutdownTimeoutMs = 5000;
    const replica = await platform.startReplica(platform.gateway, {
      SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
    });
    const { rest, token } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/load", duel)).status).toBe(200);
    expect((await rest.call("POST", "/games/load/players", players("x0"))).status).toBe(204);

    const paths = ["/games/load/players", "/games/load"];
    // The signal comes once every client holds an accepted connection (keptAliveClients).
    const { outcomes, connected, done } = keptAliveClients(
      20,
      (i) => `${replica.url}${paths[i % paths.length]}`,
      // A complete answer: its JSON body parses.
      (answer) => {
        try {
          JSON.parse(answer.body);
          return String(answer.status);
        } catch {
          return `${answer.status} with a truncated body`;
        }
      },
      { authorization: token },
    );
    await connected;
    await new Promise((r) => setTimeout(r, 1000));
    const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
      replica.child.once("exit", (code) => resolve({ code, at: Date.now() })),
    );
    const signalledAt = Date.now();
    const before = outcomes.get("200") ?? 0;
    replica.child.kill("SIGTERM");
    const exited = await exit;
    await done;

    expect(exited.code).toBe(0);
    expect(exited.at - signalledAt).toBeLessThan(shutdownTimeoutMs);
    expect([...outcomes.keys()]).toEqual(["200"]);
    expect(before).toBeGreaterThan(20);
    // Requests in flight at the signal, and those sent on the open connections after it, all answered.
    expect(outcomes.get("200")!).toBeGreaterThanOrEqual(before + 20);
  });
});

describe("a stats replica killed", () => {
  it("is replaced on its games by the other replica once the lock's lease runs out", async () => {
    const { rest, tenantId } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/lease", duel)).status).toBe(200);
    const held = new Promise<{ replica: number; at: number }>((resolve) => {
      holdRule = {
        matches: (body) => body.includes('"k0"'),
        onHold: (replica, at) => resolve({ replica, at }),
      };
    });
    expect((await rest.call("POST", "/games/lease/players", players("k0", "k1", "k2", "k3"))).status).toBe(
      204,
    );
    const { replica, at: heldAt } = await held;
    const victim = platform.statsReplicas[replica]!;
    const survivor = proxies[1 - replica]!;
    await victim.stop("SIGKILL");
    const killedAt = Date.now();

    const formed = await eventually(
      async () => {
        const rows = await statsQuery<{ match_id: string }>(
          "SELECT match_id FROM matches WHERE tenant_id = $1 AND game_id = 'lease' AND status <> 'failed'",
          [tenantId],
        );
        return rows.length >= 2 ? { at: Date.now(), rows } : undefined;
      },
      { ...PLATFORM_POLL, timeoutMs: 10_000 },
    );
    expect(formed.rows).toHaveLength(2);
    // The survivor asked the matchmaker only once the victim's lease had run out...
    const takeover = survivor.calls.find((c) => c.at > heldAt && c.body.includes('"k0"'));
    expect(takeover).toBeDefined();
    expect(takeover!.at - heldAt).toBeGreaterThanOrEqual(LEASE_MS - 300);
    // ...and formed the matches within a few seconds of it.
    expect(formed.at - killedAt).toBeLessThan(LEASE_MS + 3000);
    expect(await playersInTwoMatches()).toBe(0);

    // The killed replica starts again on its port; the gateway's view is whole.
    await victim.restart();
    const matches = await fetchMatches(rest, "lease", 2);
    expect(new Set(matches.flatMap((m) => teamsOf(m).flat()))).toEqual(new Set(["k0", "k1", "k2", "k3"]));
  });
});
