import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { migrateDatabase, withDatabaseName } from "@arena/database";
import { type PgBouncer, startPgBouncer } from "@arena/database/testing";
import { round } from "./http-timing.js";
import { type Service, startService, stopService } from "./processes.js";
import { CONNECTIONS, type LoadResult, loadTest } from "./stats-load.js";
import { StatsSeeder, seededCompletion, seededMatchId } from "./stats-seed.js";

/**
 * What PgBouncer costs the stats service's hot writes: the same seeded completions and
 * confirmations against PostgreSQL directly, through PgBouncer's session pooling, and through its
 * transaction pooling with DATABASE_POOL_MODE=transaction (statements sent unprepared).
 */
export interface PoolingBenchReport {
  connections: number;
  /** PgBouncer's server connections per database (`default_pool_size`). */
  serverConnections: number;
  runs: Array<{ setup: string; completions: LoadResult; confirmations: LoadResult }>;
  /**
   * The machine's 1-minute load average before and after the runs: above its core count, other
   * work competed for the CPU and the setups' figures compare only roughly.
   */
  loadAverage: { before: number; after: number };
}

const SERVICE_TOKEN = "bench-service-token-0123456789";
const TENANT = "bench";
const PORT = 18083;
const GAME = "pooled2v2";
const COMPLETIONS = 4_000;
const CONFIRMATIONS = 6_000;
/** Stats' request pool (20) and loop pool (4) each hold a server connection in session mode. */
const SERVER_CONNECTIONS = 30;
const HEADERS = {
  authorization: `Bearer ${SERVICE_TOKEN}`,
  "x-arena-tenant": TENANT,
  "x-arena-role": "server",
};

type Setup = { setup: string; url: (bouncer: PgBouncer, direct: string) => string; mode: string };
const SETUPS: Setup[] = [
  { setup: "direct", url: (_, direct) => direct, mode: "session" },
  { setup: "PgBouncer session pooling", url: (b) => b.url("arena_bench_pooling_session"), mode: "session" },
  {
    setup: "PgBouncer transaction pooling",
    url: (b) => b.url("arena_bench_pooling_transaction"),
    mode: "transaction",
  },
];

export async function runPoolingBenchmark(root: string): Promise<PoolingBenchReport> {
  const statsDir = join(root, "apps", "stats");
  const direct =
    process.env.BENCH_POOLING_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/arena_bench_pooling";
  await migrateDatabase({
    databaseUrl: direct,
    schemaPath: join(statsDir, "prisma", "schema.prisma"),
    migrationsDir: join(statsDir, "prisma", "migrations"),
  });
  const dbname = new URL(direct).pathname.slice(1);
  const bouncer = await startPgBouncer({
    serverUrl: withDatabaseName(direct, "postgres"),
    poolSize: SERVER_CONNECTIONS,
    databases: {
      arena_bench_pooling_session: { dbname, poolMode: "session" },
      arena_bench_pooling_transaction: { dbname, poolMode: "transaction" },
    },
  });
  const runs: PoolingBenchReport["runs"] = [];
  const before = round(loadavg()[0]!, 1);
  try {
    for (const setup of SETUPS) {
      await seed(direct);
      let service: Service | undefined;
      try {
        service = await startService(
          "stats",
          join(statsDir, "dist", "main.js"),
          PORT,
          {
            DATABASE_URL: setup.url(bouncer, direct),
            DATABASE_POOL_MODE: setup.mode,
            DATABASE_POOL_SIZE: "20",
            SERVICE_TOKEN,
            REDIS_KEY_PREFIX: "arena_bench_pooling:",
          },
          "/readyz",
        );
        runs.push({ setup: setup.setup, ...(await measure(service.url)) });
        const last = runs.at(-1)!;
        console.log(
          `  ${setup.setup}: completions ${last.completions.requestsPerSecond}/s p99 ${last.completions.p99Ms} ms, ` +
            `confirmations ${last.confirmations.requestsPerSecond}/s p99 ${last.confirmations.p99Ms} ms, ` +
            `errors ${last.completions.errors + last.confirmations.errors}`,
        );
      } finally {
        if (service) await stopService(service);
      }
    }
  } finally {
    await bouncer.stop();
  }
  const loadAverage = { before, after: round(loadavg()[0]!, 1) };
  return { connections: CONNECTIONS, serverConnections: SERVER_CONNECTIONS, runs, loadAverage };
}

/** The same database for every setup: confirmed 2v2 matches to complete, suggested ones to confirm. */
async function seed(databaseUrl: string): Promise<void> {
  const seeder = await StatsSeeder.connect(databaseUrl);
  try {
    await seeder.reset();
    await seeder.matches(TENANT, GAME, "a", COMPLETIONS, 2, 2);
    await seeder.matches(TENANT, GAME, "b", CONFIRMATIONS, 2, 2, "suggested");
  } finally {
    await seeder.close();
  }
}

async function measure(url: string): Promise<{ completions: LoadResult; confirmations: LoadResult }> {
  const put = await fetch(`${url}/games/${GAME}`, {
    method: "PUT",
    headers: { ...HEADERS, "x-arena-role": "admin", "content-type": "application/json" },
    body: JSON.stringify({ numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1"] }),
  });
  if (put.status !== 200) throw new Error(`PUT /games/${GAME} answered ${put.status}`);
  const path = (prefix: string, i: number, status: string) =>
    `/games/${GAME}/matches/${seededMatchId(prefix, i)}/statuses/${status}`;
  const completions = await loadTest({
    url: `${url}${path("a", 0, "completed")}`,
    method: "POST",
    headers: HEADERS,
    amount: COMPLETIONS,
    request: (i) => ({ path: path("a", i, "completed"), body: seededCompletion("a", i, 2, 2) }),
  });
  const confirmations = await loadTest({
    url: `${url}${path("b", 0, "confirmed")}`,
    method: "POST",
    headers: HEADERS,
    amount: CONFIRMATIONS,
    request: (i) => ({ path: path("b", i, "confirmed") }),
  });
  return { completions, confirmations };
}

/** The section of latest.md. */
export function poolingMarkdown(r: PoolingBenchReport): string {
  const rows = r.runs.map((run) => {
    const share = (rate: number, base: number) => `${Math.round((rate / base) * 100)} %`;
    const base = r.runs[0]!;
    return `| ${run.setup} | ${run.completions.requestsPerSecond}/s (${share(run.completions.requestsPerSecond, base.completions.requestsPerSecond)}) | ${run.completions.p99Ms} ms | ${run.confirmations.requestsPerSecond}/s (${share(run.confirmations.requestsPerSecond, base.confirmations.requestsPerSecond)}) | ${run.confirmations.p99Ms} ms | ${run.completions.errors + run.confirmations.errors} |`;
  });
  return [
    "",
    `**PostgreSQL behind PgBouncer** (BENCH_ONLY=pooling; stats with ${r.connections} autocannon connections, the same seeded database each time: ${COMPLETIONS.toLocaleString("en")} 2v2 completions, then ${CONFIRMATIONS.toLocaleString("en")} confirmations; Debian's PgBouncer 1.18 with ${r.serverConnections} server connections, on the same machine). Transaction pooling runs with \`DATABASE_POOL_MODE=transaction\`: the completion's four statements and the confirmation are sent unprepared, parsed and planned on every run. Load average ${r.loadAverage.before} before, ${r.loadAverage.after} after (the machine's cores: ${cpus().length}; above that, other work shared the CPU and the rows compare only roughly).`,
    "",
    "| setup | completions | p99 | confirmations | p99 | errors |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
