import { loadavg } from "node:os";
import { Redis } from "ioredis";
import type { PlatformWiring } from "../../scripts/platform-wiring.mjs";
import { platformPorts } from "../../scripts/platform-wiring.mjs";
import { BENCH_SECRETS, startApp } from "./bench-platform.js";
import { migrateDatabases } from "./gateway-proxy.js";
import { createTenant, userToken } from "./gateway-tenant.js";
import { round } from "./http-timing.js";
import { nodeFlags, type Service, stopService } from "./processes.js";
import { cpuSeconds } from "./prometheus-text.js";
import { clearPrefix } from "./stats-benchmark.js";
import { CONNECTIONS, type LoadResult, loadTest } from "./stats-load.js";
import { StatsSeeder } from "./stats-seed.js";

/**
 * The hosted hot path: leaderboard reads through the public gateway (token, role and rate-limit
 * checks, then stats, then Redis) against the gateway's own /livez, at 32 connections, with the
 * gateway's leaderboard cache off and on. Stats and the gateway run as in the gateway proxy
 * benchmark (bench-platform.ts); one board of BOARD_SIZE entries is seeded in stats' database and
 * rebuilt into Redis by stats' first read.
 */
const BOARD_SIZE = 100_000;
const GAME = "hot100k";
const DURATION_SECONDS = Number(process.env.BENCH_HOT_PATHS_SECONDS ?? 8);
/** The cache settings measured: off, and a one-second staleness bound (BENCH_HOT_PATHS_CACHE_MS=0 for one, to profile). */
const CACHE_SETTINGS_MS = (process.env.BENCH_HOT_PATHS_CACHE_MS ?? "0,1000").split(",").map(Number);
/** Targets of the open issue, as shares of the gateway's /livez throughput and p99 bounds. */
const TARGETS = {
  fromTop: { share: 0.5, p99Ms: 20 },
  fromRank: { share: 0.35, p99Ms: 20 },
  aroundPlayer: { share: 0.35, p99Ms: 20 },
} as const;

// A fixed pseudo-random walk (same ranks and players every run).
const spread = (i: number, n: number) => Number((BigInt(i) * 2_654_435_761n) % BigInt(n));

type Variant = keyof typeof TARGETS;
/** Each read's body: from-top the same 100 for everyone; from-rank one of 1,000 pages of 100; around one of every player. */
const VARIANTS: Array<{ variant: Variant; body: (i: number) => object }> = [
  { variant: "fromTop", body: () => ({ count: 100 }) },
  { variant: "fromRank", body: (i) => ({ count: 100, fromRank: spread(i, 1000) * 100 + 1 }) },
  { variant: "aroundPlayer", body: (i) => ({ count: 10, playerId: `p${spread(i, BOARD_SIZE) + 1}` }) },
];

/** The reads measured (BENCH_HOT_PATHS_READS=aroundPlayer for one, to profile it alone): all by default. */
const MEASURED = VARIANTS.filter((v) =>
  (process.env.BENCH_HOT_PATHS_READS ?? "fromTop,fromRank,aroundPlayer").split(",").includes(v.variant),
);

export interface HotPathCase {
  cacheMs: number;
  target: "livez" | Variant;
  result: LoadResult;
  shareOfLivez: number | null;
  /** CPU time of each process over the run, per request answered. */
  gatewayCpuMsPerRequest: number;
  statsCpuMsPerRequest: number;
  /** Whether the target for this read is met (null: /livez, the reference). */
  met: boolean | null;
  loadAverage: number[];
}

export interface HotPathsReport {
  connections: number;
  durationSeconds: number;
  boardSize: number;
  cases: HotPathCase[];
  targets: typeof TARGETS;
  loadAverage: { start: number[]; end: number[] };
}

/**
 * Ports of their own (21,000 above `npm start`'s; BENCH_HOT_PATHS_PORT_OFFSET): the other
 * benchmarks' stats and gateway may be running on BENCH_PORTS, and a start that found one of them
 * answering would measure it instead.
 */
const PORTS = platformPorts(Number(process.env.BENCH_HOT_PATHS_PORT_OFFSET ?? 21_000));

export async function runHotPathsBenchmark(root: string): Promise<HotPathsReport> {
  const databaseUrls = await migrateDatabases(root);
  const wiring: PlatformWiring = {
    ports: { stats: PORTS.stats, gateway: PORTS.gateway },
    secrets: BENCH_SECRETS,
    databaseUrls,
    redisKeyPrefix: `arena_bench_hot_${process.pid}:`,
  };
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const start = loadavg();
  const cases: HotPathCase[] = [];
  const services: Service[] = [];
  try {
    const stats = await startApp(root, "stats", wiring, {
      env: { DATABASE_POOL_SIZE: "20" },
      flags: nodeFlags("BENCH_STATS_FLAGS"),
    });
    services.push(stats);
    let tenant: { tenantId: string; clientId: string } | undefined;
    let token = "";
    for (const cacheMs of CACHE_SETTINGS_MS) {
      const gateway = await startApp(root, "gateway", wiring, {
        env: { TENANT_RATE_LIMIT: "1000000000", LEADERBOARD_CACHE_MS: String(cacheMs) },
        flags: nodeFlags("BENCH_GATEWAY_FLAGS"),
      });
      services.push(gateway);
      if (tenant === undefined) {
        tenant = await createTenant(gateway.url);
        token = await userToken(gateway.url, tenant, "admin");
        await seedBoard(databaseUrls.stats, tenant.tenantId);
        await putGame(gateway.url, token);
      }
      console.log(`  LEADERBOARD_CACHE_MS=${cacheMs}:`);
      cases.push(...(await measureAll(gateway, stats, token, cacheMs)));
      await stopService(gateway);
      services.splice(services.indexOf(gateway), 1);
    }
  } finally {
    await Promise.all(services.map(stopService));
    // The seeded board (about 8 MB) would otherwise stay in the shared Redis after every run.
    await clearPrefix(redis, wiring.redisKeyPrefix!);
    redis.disconnect();
  }
  return {
    connections: CONNECTIONS,
    durationSeconds: DURATION_SECONDS,
    boardSize: BOARD_SIZE,
    cases,
    targets: TARGETS,
    loadAverage: { start, end: loadavg() },
  };
}

async function seedBoard(statsDatabaseUrl: string, tenantId: string): Promise<void> {
  const seeder = await StatsSeeder.connect(statsDatabaseUrl);
  try {
    await seeder.reset();
    await seeder.board(tenantId, GAME, BOARD_SIZE);
  } finally {
    await seeder.close();
  }
}

async function putGame(gatewayUrl: string, token: string): Promise<void> {
  const res = await fetch(`${gatewayUrl}/games/${GAME}`, {
    method: "PUT",
    headers: { authorization: token, "content-type": "application/json", prefer: "return=representation" },
    body: JSON.stringify({ numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"] }),
  });
  if (!res.ok) throw new Error(`PUT /games/${GAME} answered ${res.status}: ${await res.text()}`);
}

/** /livez, then each read variant (warmed up first: the first read rebuilds the board into Redis). */
async function measureAll(gateway: Service, stats: Service, token: string, cacheMs: number) {
  const headers = { authorization: token };
  const url = `${gateway.url}/games/${GAME}/leaderboard`;
  const warm = (v: (typeof VARIANTS)[number]) =>
    loadTest({
      url,
      method: "POST",
      headers,
      durationSeconds: 2,
      request: (i) => ({ body: JSON.stringify(v.body(i)) }),
    });
  await loadTest({ url: `${gateway.url}/livez`, method: "GET", headers: {}, durationSeconds: 2 });
  for (const v of MEASURED) await warm(v);
  const cases: HotPathCase[] = [];
  const livez = await measured(gateway, stats, () =>
    loadTest({ url: `${gateway.url}/livez`, method: "GET", headers: {}, durationSeconds: DURATION_SECONDS }),
  );
  cases.push({ cacheMs, target: "livez", ...livez, shareOfLivez: null, met: null });
  log(cases.at(-1)!);
  for (const v of MEASURED) {
    const run = await measured(gateway, stats, () =>
      loadTest({
        url,
        method: "POST",
        headers,
        durationSeconds: DURATION_SECONDS,
        request: (i) => ({ body: JSON.stringify(v.body(i)) }),
      }),
    );
    if (run.result.errors > 0) throw new Error(`${v.variant}: ${run.result.errors} errors`);
    const share = round(run.result.requestsPerSecond / livez.result.requestsPerSecond, 3);
    const target = TARGETS[v.variant];
    const met = share >= target.share && run.result.p99Ms <= target.p99Ms;
    cases.push({ cacheMs, target: v.variant, ...run, shareOfLivez: share, met });
    log(cases.at(-1)!);
  }
  return cases;
}

/** One load run with each process' CPU time over it, per request. */
async function measured(gateway: Service, stats: Service, run: () => Promise<LoadResult>) {
  const before = [cpuSeconds(gateway.child.pid!), cpuSeconds(stats.child.pid!)];
  const result = await run();
  const after = [cpuSeconds(gateway.child.pid!), cpuSeconds(stats.child.pid!)];
  const perRequest = (k: number) =>
    round(((after[k]! - before[k]!) * 1000) / Math.max(1, result.requests), 3);
  return {
    result,
    gatewayCpuMsPerRequest: perRequest(0),
    statsCpuMsPerRequest: perRequest(1),
    loadAverage: loadavg().map((n) => round(n, 2)),
  };
}

function log(c: HotPathCase): void {
  console.log(
    `    ${c.target}: ${c.result.requestsPerSecond}/s p50 ${c.result.p50Ms} ms p99 ${c.result.p99Ms} ms` +
      (c.shareOfLivez === null
        ? ""
        : ` (${Math.round(c.shareOfLivez * 100)} % of /livez, target ${c.met ? "met" : "missed"})`) +
      `, CPU/request gateway ${c.gatewayCpuMsPerRequest} ms, stats ${c.statsCpuMsPerRequest} ms, load ${c.loadAverage.join(" ")}`,
  );
}

const NAMES: Record<HotPathCase["target"], string> = {
  livez: "gateway `/livez`",
  fromTop: "from-top (100, the same for all)",
  fromRank: "from-rank (100, 1,000 pages)",
  aroundPlayer: "around-player (±10, 100,000 players)",
};

/** Which parts of its target a read missed: its share of /livez, its p99, or both. */
function missedParts(report: HotPathsReport, c: HotPathCase): string[] {
  if (c.target === "livez" || c.shareOfLivez === null) return [];
  const target = report.targets[c.target];
  return [
    ...(c.shareOfLivez < target.share ? ["share"] : []),
    ...(c.result.p99Ms > target.p99Ms ? ["p99"] : []),
  ];
}

/** The figures as Markdown, for bench/results/latest.md. */
export function hotPathsMarkdown(report: HotPathsReport): string {
  const t = report.targets;
  const rows = report.cases.map((c) => {
    const share = c.shareOfLivez === null ? "—" : `${(c.shareOfLivez * 100).toFixed(1)} %`;
    const met = c.met === null ? "—" : c.met ? "met" : `missed (${missedParts(report, c).join(", ")})`;
    return `| ${c.cacheMs} | ${NAMES[c.target]} | ${c.result.requestsPerSecond.toLocaleString("en")} | ${c.result.p50Ms} ms | ${c.result.p99Ms} ms | ${share} | ${met} | ${c.gatewayCpuMsPerRequest} | ${c.statsCpuMsPerRequest} | ${c.loadAverage[0]} |`;
  });
  return [
    "",
    `**Hosted hot paths**: leaderboard reads (\`POST /games/{gameId}/leaderboard\`, an admin's IdToken) through the gateway to stats and Redis, on a board of ${report.boardSize.toLocaleString("en")} entries, against the gateway's own \`/livez\`; autocannon, ${report.connections} connections, ${report.durationSeconds} s each, with the gateway's leaderboard cache off (\`LEADERBOARD_CACHE_MS=0\`) and on. Targets: from-top ≥ ${t.fromTop.share * 100} % of /livez with p99 ≤ ${t.fromTop.p99Ms} ms, from-rank and around-player ≥ ${t.aroundPlayer.share * 100} % (p99 ≤ ${t.aroundPlayer.p99Ms} ms). CPU per request from /proc over each run. A p99 is only as good as the machine allows: compare it with /livez's own. Load average ${report.loadAverage.start.map((n) => n.toFixed(2)).join(" ")} at the start, ${report.loadAverage.end.map((n) => n.toFixed(2)).join(" ")} at the end (2 cores, shared).`,
    "",
    "| cache ms | read | req/s | p50 | p99 | of /livez | target | gateway CPU ms/req | stats CPU ms/req | load (1 min) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
