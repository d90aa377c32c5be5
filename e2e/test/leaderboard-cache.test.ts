import { eventually, promtoolCheckMetrics } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { newTenant } from "../src/clients.js";
import { type AppProcess, type Platform, PlatformLaunch } from "../src/platform.js";

/**
 * The gateway's leaderboard read cache against the real stats, Redis and PostgreSQL: stats and two
 * gateway replicas (A and B) on the same databases. A board change is a season started (the
 * answer's `season` moves on), through A, through B, or directly in stats.
 */
const CACHE_MS = 1500;
let launch: PlatformLaunch;
let stats: AppProcess;
let a: AppProcess;
let b: AppProcess;
let statsDatabaseUrl: string;

beforeAll(async () => {
  launch = new PlatformLaunch({});
  try {
    statsDatabaseUrl = await launch.database("stats");
    stats = await launch.start("stats");
    await launch.database("gateway");
    a = await launch.start("gateway", { LEADERBOARD_CACHE_MS: String(CACHE_MS) });
    b = await launch.startReplica(a, {});
  } catch (err) {
    await launch.abort();
    throw err;
  }
}, 120_000);
afterAll(async () => launch?.close());

interface Tenant {
  tenantId: string;
  token: string;
}

async function tenant(): Promise<Tenant> {
  const created = await newTenant({ gateway: a, adminToken: launch.adminToken } as unknown as Platform);
  const t = { tenantId: created.tenantId, token: created.token };
  await call(a, t, "PUT", "/games/g1", { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"] });
  return t;
}

async function call(gateway: AppProcess, t: Tenant, method: string, path: string, body?: object) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: t.token, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
}

/** The same call made directly to stats with the service token, as the gateway makes it. */
async function callStats(t: Tenant, method: string, path: string, body?: object) {
  const res = await fetch(`${stats.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${launch.wiring.secrets.serviceToken}`,
      "x-arena-tenant": t.tenantId,
      "x-arena-role": "admin",
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`stats ${method} ${path} answered ${res.status}: ${await res.text()}`);
}

async function read(gateway: AppProcess, t: Tenant, body: object = { count: 10 }, game = "g1") {
  const res = await fetch(`${gateway.url}/games/${game}/leaderboard`, {
    method: "POST",
    headers: { authorization: t.token, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { season?: string; code?: string };
  return { status: res.status, age: res.headers.get("age"), season: answer.season, code: answer.code };
}

async function metric(app: AppProcess, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) if (pattern.test(line)) sum += Number(line.split(" ").pop());
  return sum;
}

describe("the gateway's leaderboard cache with the real stats", () => {
  it("serves a repeated read from the cache, and this replica's own season change at once", async () => {
    const t = await tenant();
    expect(await read(a, t)).toEqual({ status: 200, age: null, season: "S1", code: undefined });
    expect(await read(a, t)).toEqual({ status: 200, age: "0", season: "S1", code: undefined });
    await call(a, t, "POST", "/seasons", {});
    expect(await read(a, t)).toEqual({ status: 200, age: null, season: "S2", code: undefined });
  });

  it("sees a change through another replica or directly in stats within LEADERBOARD_CACHE_MS", async () => {
    const t = await tenant();
    let season = 1;
    for (const write of [
      () => call(b, t, "POST", "/seasons", {}),
      () => callStats(t, "POST", "/seasons", {}),
    ]) {
      expect((await read(a, t)).season).toBe(`S${season}`);
      await write();
      const written = performance.now();
      season++;
      // A may still answer the season before, from its cache, at most CACHE_MS old.
      const stale = await read(a, t);
      if (stale.season !== `S${season}`) {
        expect(stale.season).toBe(`S${season - 1}`);
        expect(stale.age).not.toBeNull();
        const fresh = `S${season}`;
        await eventually(async () => (await read(a, t)).season === fresh, { everyMs: 50 });
      }
      // The bound, and the polling step and a read's time besides.
      expect(performance.now() - written).toBeLessThan(CACHE_MS + 500);
    }
  });

  it("keeps each tenant's answers apart, however alike their reads", async () => {
    const moved = await tenant();
    const other = await tenant();
    await call(a, moved, "POST", "/seasons", {});
    for (let i = 0; i < 2; i++) {
      expect((await read(a, moved, { count: 3 })).season).toBe("S2");
      expect((await read(a, other, { count: 3 })).season).toBe("S1");
    }
  });

  it("makes one call to stats for many concurrent reads of one board", async () => {
    const t = await tenant();
    const statsReads = () => metric(stats, /^stats_leaderboard_reads_total/);
    const misses = () => metric(a, /^gateway_leaderboard_cache_reads_total\{outcome="miss"/);
    const [statsBefore, missesBefore] = [await statsReads(), await misses()];
    const answers = await Promise.all(Array.from({ length: 20 }, () => read(a, t, { count: 17 })));
    expect(answers.every((x) => x.status === 200 && x.season === "S1")).toBe(true);
    expect((await statsReads()) - statsBefore).toBe(1);
    expect((await misses()) - missesBefore).toBe(1);
  });

  it("never keeps an error: a game created behind the replica's back is readable at once", async () => {
    const t = await tenant();
    expect((await read(a, t, { count: 10 }, "later")).code).toBe("NOT_FOUND");
    await callStats(t, "PUT", "/games/later", { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"] });
    expect(await read(a, t, { count: 10 }, "later")).toMatchObject({ status: 200, age: null, season: "S1" });
  });

  it("answers concurrent reads stats got in batches (cache off) byte for byte as each read alone", async () => {
    const c = await launch.startReplica(a, { LEADERBOARD_CACHE_MS: "0" });
    const t = await tenant();
    // 300 players of g1 in S1 straight into PostgreSQL: the board's first read builds it from them.
    const db = new pg.Client({ connectionString: statsDatabaseUrl });
    await db.connect();
    try {
      const ids = Array.from({ length: 300 }, (_, i) => `p${i}`);
      await db.query("INSERT INTO players (tenant_id, player_id, seq) SELECT $1, unnest($2::text[]), 1", [
        t.tenantId,
        ids,
      ]);
      await db.query(
        `INSERT INTO player_stats (tenant_id, game_id, season, player_id, mu, sigma, ranking_points,
           points_changed_at, matches, board_seq, updated_at)
         SELECT $1, 'g1', 1, id, 25, 8.3, (n * 37) % 1000, now(), 1, 1, now()
         FROM unnest($2::text[]) WITH ORDINALITY AS x(id, n)`,
        [t.tenantId, ids],
      );
    } finally {
      await db.end();
    }
    const bodies = [
      ...Array.from({ length: 300 }, (_, i) => ({ count: 1 + (i % 5), playerId: `p${i}` })),
      ...Array.from({ length: 20 }, (_, i) => ({ count: 10, fromRank: 1 + i * 13 })),
      { count: 2, playerId: "nobody" },
      { count: 51, playerId: "p1" },
    ];
    const text = async (body: object) => {
      const res = await fetch(`${c.url}/games/g1/leaderboard`, {
        method: "POST",
        headers: { authorization: t.token, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return `${res.status} ${res.headers.get("content-type")} ${(await res.text()).replace(/"requestId":"[^"]+"/, "")}`;
    };
    const alone: string[] = [];
    for (const body of bodies) alone.push(await text(body));
    expect(alone.filter((x) => x.startsWith("200 application/json")).length).toBe(320);
    const batched = /^gateway_leaderboard_upstream_reads_total\{sent="batched"/;
    const before = await metric(c, batched);
    expect(await Promise.all(bodies.map(text))).toEqual(alone);
    expect((await metric(c, batched)) - before).toBeGreaterThan(100);
  });

  it("names its metrics in a way promtool accepts", async () => {
    const text = await (await fetch(`${a.url}/metrics`)).text();
    expect(text).toMatch(/^gateway_leaderboard_cache_entries\{/m);
    expect(text).toMatch(/^gateway_leaderboard_cache_reads_total\{outcome="hit"/m);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: "" });
  });
});
