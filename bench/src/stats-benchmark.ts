import { join } from "node:path";
import { migrateDatabase } from "@arena/database";
import { Redis } from "ioredis";
import { Leaderboard } from "redis-rank";
import { round } from "./http-timing.js";
import { type Service, startService, stopService } from "./processes.js";
import { type LoadResult, loadInProcess, loadTest } from "./stats-load.js";
import { StatsSeeder, seededCompletion, seededMatchId } from "./stats-seed.js";

const SERVICE_TOKEN = "bench-service-token-0123456789";
const TENANT = "bench";
const PREFIX = "arena_bench_stats:";
const PORT = 18081;
const FLOOR_PORT = 18092;
/** Entries per answer in every read variant (around-player: 50 on each side, 101 in all). */
const PAGE = 100;

export interface BoardReads {
  boardSize: number;
  variant: "fromTop" | "fromRank" | "aroundPlayer";
  stats: LoadResult;
  redisRank: LoadResult;
  floor: LoadResult;
  /** The stats API's throughput as a share of the floor's. */
  shareOfFloor: number;
}

export interface StatsBenchReport {
  connections: number;
  reads: BoardReads[];
  completions: Array<{ mode: string; matches: number; result: LoadResult }>;
  rebuild: Array<{ boardSize: number; firstReadSeconds: number; rebuildSeconds: number }>;
}

// A fixed pseudo-random walk (same ranks and players every run).
const spread = (i: number, n: number) => Number((BigInt(i) * 2_654_435_761n) % BigInt(n));

/** The leaderboards read, by entries. */
const BOARD_SIZES = [100_000, 1_000_000];
/** The completions measured, one game each, on matches seeded confirmed. */
const COMPLETION_RUNS = [
  { mode: "2v2", gameId: "c2v2", prefix: "a", numTeams: 2, teamSize: 2, matches: 8_000 },
  { mode: "5v5", gameId: "c5v5", prefix: "b", numTeams: 2, teamSize: 5, matches: 3_000 },
];
/** What every request to stats (and to the floor) carries: the service token, as an admin. */
const HEADERS = {
  authorization: `Bearer ${SERVICE_TOKEN}`,
  "x-arena-tenant": TENANT,
  "x-arena-role": "admin",
};

export async function runStatsBenchmark(root: string): Promise<StatsBenchReport> {
  const statsDir = join(root, "apps", "stats");
  const databaseUrl =
    process.env.BENCH_STATS_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/arena_bench_stats";
  await migrateDatabase({
    databaseUrl,
    schemaPath: join(statsDir, "prisma", "schema.prisma"),
    migrationsDir: join(statsDir, "prisma", "migrations"),
  });
  await seedDatabase(databaseUrl);
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  await clearPrefix(redis, PREFIX);

  let service: Service | undefined;
  let floorService: Service | undefined;
  try {
    service = await startService(
      "stats",
      join(statsDir, "dist", "main.js"),
      PORT,
      { DATABASE_URL: databaseUrl, SERVICE_TOKEN, REDIS_KEY_PREFIX: PREFIX, DATABASE_POOL_SIZE: "20" },
      "/readyz",
    );
    // The HTTP floor: stats' stack with the same token check, answering a constant (stats-floor.ts).
    floorService = await startService(
      "stats-floor",
      join(root, "bench", "dist", "stats-floor.js"),
      FLOOR_PORT,
      { SERVICE_TOKEN },
      "/readyz",
    );
    const url = service.url;
    for (const size of BOARD_SIZES) await putGame(url, HEADERS, boardId(size), 2, 1);
    for (const r of COMPLETION_RUNS) await putGame(url, HEADERS, r.gameId, r.numTeams, r.teamSize);
    const rebuild = await measureRebuilds(url);
    const reads: BoardReads[] = [];
    for (const size of BOARD_SIZES) reads.push(...(await measureReads(url, floorService.url, redis, size)));
    const completions = await measureCompletions(url);
    return { connections: 32, reads, completions, rebuild };
  } finally {
    if (service) await stopService(service);
    if (floorService) await stopService(floorService);
    await clearPrefix(redis, PREFIX);
    redis.disconnect();
  }
}

/** Empties the stats database, then seeds the boards and the confirmed matches. */
async function seedDatabase(databaseUrl: string): Promise<void> {
  const seeder = await StatsSeeder.connect(databaseUrl);
  console.log("Seeding the stats database (boards of 100k and 1M players, confirmed matches)...");
  try {
    await seeder.reset();
    for (const size of BOARD_SIZES) await seeder.board(TENANT, boardId(size), size);
    for (const r of COMPLETION_RUNS)
      await seeder.matches(TENANT, r.gameId, r.prefix, r.matches, r.numTeams, r.teamSize);
  } finally {
    await seeder.close();
  }
}

/** Redis holds nothing, so each board's first read rebuilds it from PostgreSQL. */
async function measureRebuilds(url: string): Promise<StatsBenchReport["rebuild"]> {
  const rebuild: StatsBenchReport["rebuild"] = [];
  for (const size of BOARD_SIZES) {
    const before = await rebuildSecondsSum(url);
    const started = process.hrtime.bigint();
    await readBoard(url, HEADERS, boardId(size), { count: 1 });
    const firstReadSeconds = round(Number(process.hrtime.bigint() - started) / 1e9, 2);
    const rebuildSeconds = round((await rebuildSecondsSum(url)) - before, 2);
    rebuild.push({ boardSize: size, firstReadSeconds, rebuildSeconds });
    console.log(
      `  rebuild of ${size.toLocaleString("en")} entries: ${rebuildSeconds} s (first read ${firstReadSeconds} s)`,
    );
  }
  return rebuild;
}

/** One way of reading a board: the request stats is sent, and the same read through redis-rank. */
interface ReadVariant {
  variant: BoardReads["variant"];
  body: (i: number) => object;
  library: (i: number) => Promise<unknown>;
}

function readVariants(board: Leaderboard, size: number): ReadVariant[] {
  return [
    {
      variant: "fromTop",
      body: () => ({ count: PAGE }),
      library: () => board.top(PAGE),
    },
    {
      variant: "fromRank",
      body: (i) => ({ count: PAGE, fromRank: 1 + spread(i, size - PAGE) }),
      library: (i) => {
        const from = 1 + spread(i, size - PAGE);
        return board.list(from, from + PAGE - 1);
      },
    },
    {
      variant: "aroundPlayer",
      body: (i) => ({ count: PAGE / 2, playerId: `p${1 + spread(i, size)}` }),
      library: (i) => board.around(`p${1 + spread(i, size)}`, PAGE / 2),
    },
  ];
}

/** Each read variant on one board: the floor, the stats API, then redis-rank on the same keys. */
async function measureReads(
  url: string,
  floorUrl: string,
  redis: Redis,
  size: number,
): Promise<BoardReads[]> {
  const game = boardId(size);
  const key = `${PREFIX}{${TENANT}:${game}}:board:S1`;
  const board = new Leaderboard(redis, key, { sortPolicy: "high-to-low", updatePolicy: "replace" });
  const reads: BoardReads[] = [];
  for (const v of readVariants(board, size)) {
    // The floor gets the same request (method, headers, body) and answers a constant.
    const floor = await loadTest({
      url: `${floorUrl}/ping`,
      method: "POST",
      headers: HEADERS,
      request: (i) => ({ body: JSON.stringify(v.body(i)) }),
    });
    const stats = await loadTest({
      url: `${url}/games/${game}/leaderboard`,
      method: "POST",
      headers: HEADERS,
      request: (i) => ({ body: JSON.stringify(v.body(i)) }),
    });
    const redisRank = await loadInProcess(v.library);
    const shareOfFloor = round(stats.requestsPerSecond / floor.requestsPerSecond, 2);
    reads.push({ boardSize: size, variant: v.variant, stats, redisRank, floor, shareOfFloor });
    console.log(
      `  ${size.toLocaleString("en")} ${v.variant}: stats ${stats.requestsPerSecond}/s p99 ${stats.p99Ms} ms, ` +
        `redis-rank ${redisRank.requestsPerSecond}/s p99 ${redisRank.p99Ms} ms, floor ${floor.requestsPerSecond}/s ` +
        `(${Math.round(shareOfFloor * 100)} %)`,
    );
  }
  return reads;
}

/** Every seeded match completed once, by a game server, distinct matches with no shared players. */
async function measureCompletions(url: string): Promise<StatsBenchReport["completions"]> {
  const completions: StatsBenchReport["completions"] = [];
  for (const r of COMPLETION_RUNS) {
    const result = await loadTest({
      url: `${url}/games/${r.gameId}/matches/${seededMatchId(r.prefix, 0)}/statuses/completed`,
      method: "POST",
      headers: { ...HEADERS, "x-arena-role": "server" },
      amount: r.matches,
      request: (i) => ({
        path: `/games/${r.gameId}/matches/${seededMatchId(r.prefix, i)}/statuses/completed`,
        body: seededCompletion(r.prefix, i, r.numTeams, r.teamSize),
      }),
    });
    completions.push({ mode: r.mode, matches: r.matches, result });
    console.log(
      `  completions ${r.mode}: ${result.requestsPerSecond}/s p99 ${result.p99Ms} ms, errors ${result.errors}`,
    );
  }
  return completions;
}

const boardId = (size: number) => (size >= 1_000_000 ? `board${size / 1_000_000}m` : `board${size / 1000}k`);

async function putGame(
  url: string,
  headers: Record<string, string>,
  gameId: string,
  numTeams: number,
  numPlayersPerTeam: number,
) {
  const res = await fetch(`${url}/games/${gameId}`, {
    method: "PUT",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ numTeams, numPlayersPerTeam, servers: ["eu-1"] }),
  });
  if (res.status !== 200) throw new Error(`PUT /games/${gameId} answered ${res.status}: ${await res.text()}`);
}

async function readBoard(url: string, headers: Record<string, string>, gameId: string, body: object) {
  const res = await fetch(`${url}/games/${gameId}/leaderboard`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`leaderboard read answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function rebuildSecondsSum(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("stats_leaderboard_rebuild_seconds_sum"));
  return Number(line?.split(" ").pop() ?? 0);
}

/** Deletes every Redis key under the prefix. */
export async function clearPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
}
