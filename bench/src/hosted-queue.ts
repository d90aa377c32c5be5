import { cpus } from "node:os";
import { join } from "node:path";
import type { CompleteMatchRequest, DeliveredMatch } from "@arena/contracts";
import {
  createTestDatabase,
  type PgBouncer,
  startPgBouncer,
  type TestDatabase,
} from "@arena/database/testing";
import { startTestCluster } from "@arena/redis/testing";
import { Redis } from "ioredis";
import pg from "pg";
import { BENCH_PORTS, BENCH_SECRETS, startApp } from "./bench-platform.js";
import {
  type GatewayCompletionsReport,
  gatewayCompletionsMarkdown,
  runGatewayCompletions,
} from "./gateway-completions.js";
import { createTenant, json, userToken } from "./gateway-tenant.js";
import { ascending, percentileOfSorted, round } from "./http-timing.js";
import { startLicensedMatchmaker } from "./licensed-matchmaker.js";
import { PostgresMeter } from "./postgres-usage.js";
import { nodeFlags, type Service, stopService } from "./processes.js";
import {
  cpuSeconds,
  histogramDelta,
  machineCpuSeconds,
  type Sample,
  scrape,
  total,
} from "./prometheus-text.js";
import { RestTransport, sleep, type Transport, WebSocketTransport } from "./queue-servers.js";
import { type PrivateRedis, RedisMeter, startPrivateRedis } from "./redis-usage.js";
import { ResourceMeter, type ResourceReport, resourceMarkdown } from "./resource-usage.js";
import { clearPrefix } from "./stats-benchmark.js";

const GAME_ID = "queue-2v2";
const LOOP_INTERVAL_MS = 1000;
/**
 * Simulated game servers (BENCH_QUEUE_SERVERS, even: half over REST, half over WebSocket). More
 * servers, or larger adds (BENCH_QUEUE_RATE / servers / 5 players each), raise what is offered.
 */
const SERVERS = Math.max(2, 2 * Math.round(Number(process.env.BENCH_QUEUE_SERVERS ?? 10) / 2));
/** How long after the load stops the servers keep taking suggestions for players still waiting. */
const DRAIN_SECONDS = 10;
const POLL_MS = 200;
/** When the stats database is analyzed, into the load window (see runHostedQueueBenchmark). */
const ANALYZE_AFTER_MS = 5000;
/** The rate the platform must accept on the benchmark machine (2 cores). */
const TARGET_PLAYERS_PER_SECOND = 2000;
/**
 * What the servers offer by default (BENCH_QUEUE_RATE): a tenth above the target, since paced
 * batches land a little under their nominal rate (timer drift; 1,966/s of 2,000 nominal).
 */
const DEFAULT_OFFERED_PER_SECOND = 2200;
/** How much longer than one loop interval a player may wait for its suggestion at p95. */
const P95_OVER_INTERVAL_MS = 500;
const TICK_STEPS = ["expire", "timeOut", "backfill", "waiting", "matchmaker", "store", "reoffer"];
const BATCH_INTERVAL_MS = 200;
/**
 * Adds a server keeps unanswered at once (BENCH_QUEUE_OUTSTANDING). 1 (the default): a server
 * sends its next batch only after the previous add's answer, so slow adds lower the rate offered
 * (shown as "offered"). More (4 offers the 2,000 players/s of the target on a loaded machine):
 * batches leave on schedule while earlier ones wait, a probe of capacity beyond that. On a
 * saturated machine a WebSocket server's confirmations then queue behind its adds, and a
 * confirmation later than the game's `confirmationTimeout` is a 409 (its match timed out).
 */
const MAX_OUTSTANDING_ADDS = Number(process.env.BENCH_QUEUE_OUTSTANDING ?? 1);
/** Unanswered messages per WebSocket at most (the gateway's WS_MAX_IN_FLIGHT is 32). */
const WS_MAX_IN_FLIGHT = 24;

/**
 * What the platform runs on: PostgreSQL directly or behind PgBouncer's transaction pooling (stats
 * with DATABASE_POOL_MODE=transaction, migrations direct), and one Redis server or a 3-master,
 * 3-replica Redis Cluster (REDIS_CLUSTER_NODES).
 */
export interface QueueTopology {
  name: string;
  database: "direct" | "pgbouncer";
  redis: "single" | "cluster";
}

export const SINGLE_NODE: QueueTopology = {
  name: "one PostgreSQL, one Redis",
  database: "direct",
  redis: "single",
};

export interface HostedQueueReport {
  /** The topology measured (absent from reports before topologies were compared: one node each). */
  topology?: QueueTopology;
  seconds: number;
  loopIntervalMs: number;
  game: { gameId: string; mode: string; targetWaitingTime: number; servers: number };
  servers: { rest: number; websocket: number };
  pacing: { batchSize: number; batchIntervalMs: number; offeredPerSecond: number };
  players: { offered: number; accepted: number; acceptedPerSecond: number; unmatchedAtEnd: number };
  submitToSuggestion: { players: number; p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number };
  matches: {
    received: { rest: number; websocket: number };
    receivedTwice: number;
    completed: number;
    completionsPerSecond: number;
  };
  errors: { count: number; samples: string[] };
  playersInTwoMatches: { seenByServers: number; inDatabase: number };
  /** Matches per status in PostgreSQL at the end. */
  databaseMatches: Record<string, number>;
  profile: QueueProfile;
  /** Where the resources went, per player (absent from reports before it was measured). */
  resources?: ResourceReport;
  /** Completions of matches confirmed beforehand, through the gateway (BENCH_QUEUE_COMPLETIONS). */
  gatewayCompletions?: GatewayCompletionsReport;
  targets: { acceptedPerSecond: number; p95Ms: number; errors: number; playersInTwoMatches: number };
}

interface QueueProfile {
  /** One game's tick of the stats loop (stats_matchmaking_tick_seconds), over the load window. */
  tick: { count: number; meanMs: number; p95UpToMs: number | null };
  /** Each step of those ticks (stats_matchmaking_tick_step_seconds): where a slow tick spends its time. */
  tickSteps: Array<{ step: string; count: number; meanMs: number; p95UpToMs: number | null }>;
  /** The matchmaker's `POST /matchmaking/basic`, as the matchmaker timed it. */
  matchmakerCall: { count: number; meanMs: number; p95UpToMs: number | null };
  /** Stats' own time per hosted route (its http_request_duration_seconds), over the window. */
  statsRoutes: Array<{ route: string; count: number; meanMs: number; p95UpToMs: number | null }>;
  pushes: { offered: number; unclaimed: number };
  /** Suggestions the loop stored, and those it dropped (a player no longer waiting). */
  suggestions: { stored: number; dropped: number };
  /** Waiting players at the stats loop's ticks (stats_queue_waiting_players), sampled each second. */
  waitingPlayers: { max: number; last: number };
  /** CPU used over the window, in cores (1 = one core busy the whole time). */
  cpuCores: Record<string, number>;
  /** Stats' completion transactions (stats_match_completion_batch_size) and completions per one. */
  completionTransactions: { count: number; meanSize: number };
  /** Stats' confirmation statements (stats_match_confirmation_batch_size; absent before they were grouped). */
  confirmationStatements?: { count: number; meanSize: number };
  /** An add's round trip as the game servers saw it (gateway, stats and the server's own queue). */
  addAnswered: Record<Transport["kind"], { p50Ms: number; p95Ms: number }>;
}

/** Everything one run counts; the servers report into it. */
class Tally {
  readonly addedAt = new Map<string, number>();
  /** Players seen in a suggestion before their add's answer came back: the time seen. */
  private readonly seenEarly = new Map<string, number>();
  private readonly matchOf = new Map<string, string>();
  private readonly matchesSeen = new Set<string>();
  readonly latencies: number[] = [];
  /** Each add's round trip as its server saw it, per transport. */
  readonly addTimes: Record<Transport["kind"], number[]> = { rest: [], websocket: [] };
  readonly received = { rest: 0, websocket: 0 };
  readonly errorSamples = new Map<string, number>();
  offered = 0;
  accepted = 0;
  errors = 0;
  receivedTwice = 0;
  playersInTwoMatches = 0;
  completed = 0;
  completedInWindow = 0;
  windowOpen = true;

  error(what: string): void {
    this.errors++;
    const key = what.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "…");
    this.errorSamples.set(key, (this.errorSamples.get(key) ?? 0) + 1);
  }

  added(playerIds: readonly string[]): void {
    const now = performance.now();
    this.accepted += playerIds.length;
    for (const id of playerIds) {
      const seen = this.seenEarly.get(id);
      if (seen === undefined) this.addedAt.set(id, now);
      else this.latencies.push(0);
    }
  }

  /** Answers false when this match was already received (it must then not be played again). */
  suggested(match: DeliveredMatch, transport: Transport["kind"]): boolean {
    if (this.matchesSeen.has(match.id)) {
      this.receivedTwice++;
      return false;
    }
    this.matchesSeen.add(match.id);
    this.received[transport]++;
    const now = performance.now();
    for (const team of match.teams) {
      for (const { playerId } of team.players) {
        const earlier = this.matchOf.get(playerId);
        if (earlier !== undefined && earlier !== match.id) this.playersInTwoMatches++;
        this.matchOf.set(playerId, match.id);
        const added = this.addedAt.get(playerId);
        if (added === undefined) this.seenEarly.set(playerId, now);
        else {
          this.latencies.push(now - added);
          this.addedAt.delete(playerId);
        }
      }
    }
    return true;
  }

  completion(): void {
    this.completed++;
    if (this.windowOpen) this.completedInWindow++;
  }

  /** Accepted players not seen in any suggestion yet. */
  get unmatched(): number {
    return this.addedAt.size;
  }
}

/** Random ranks (a winner and a loser, or a draw now and then) and scores for a 2-team match. */
function randomResult(match: DeliveredMatch): CompleteMatchRequest {
  const draw = Math.random() < 0.1;
  const firstWins = Math.random() < 0.5;
  return {
    server: match.server,
    gameLength: 600,
    teams: match.teams.map((team, i) => ({
      rank: draw ? 0 : (i === 0) === firstWins ? 0 : 1,
      players: team.players.map((p) => ({ playerId: p.playerId, score: Math.floor(Math.random() * 100) })),
    })),
  };
}

const percentiles = (values: readonly number[]) => {
  const sorted = ascending(values);
  return {
    p50Ms: Math.round(percentileOfSorted(sorted, 50)),
    p95Ms: Math.round(percentileOfSorted(sorted, 95)),
  };
};

/** The game every server queues players for. */
const GAME = { numTeams: 2, numPlayersPerTeam: 2, targetWaitingTime: 1, servers: ["eu-1", "eu-2", "us-1"] };

/** How many players are offered and in what batches, over how long. */
interface Pacing {
  seconds: number;
  offeredRate: number;
  batchSize: number;
}

interface QueuePlatform {
  matchmaker: Service;
  stats: Service;
  gateway: Service;
  statsDatabaseUrl: string;
  gatewayDatabaseUrl: string;
}

/** The simulated game servers, and the matches they are still confirming or completing. */
interface Fleet {
  transports: Transport[];
  handling: Set<Promise<void>>;
}

/** Stats' and the matchmaker's metrics at one moment. */
interface PlatformMetrics {
  stats: Sample[];
  matchmaker: Sample[];
}

/** What the load window measured, apart from what the servers counted in the tally. */
interface LoadWindow {
  elapsed: number;
  before: PlatformMetrics;
  after: PlatformMetrics;
  cpuCores: Record<string, number>;
  waiting: { max: number; last: number };
}

/**
 * The hosted queue end to end: the four apps as processes, ten simulated game servers
 * (half over REST polling, half over one subscribed WebSocket each) queueing unique players at a
 * paced rate, and confirming then completing every match they receive with a random result.
 */
export async function runHostedQueueBenchmark(
  root: string,
  topology: QueueTopology = SINGLE_NODE,
): Promise<HostedQueueReport> {
  const offeredRate = Number(process.env.BENCH_QUEUE_RATE ?? DEFAULT_OFFERED_PER_SECOND);
  const pacing: Pacing = {
    seconds: Number(process.env.BENCH_QUEUE_SECONDS ?? 60),
    offeredRate,
    batchSize: Math.max(1, Math.round((offeredRate * BATCH_INTERVAL_MS) / 1000 / SERVERS)),
  };
  const redisPrefix = `arena_bench_queue_${process.pid}:`;
  const databases: TestDatabase[] = [];
  const services: Service[] = [];
  const cluster = topology.redis === "cluster" ? await startTestCluster() : undefined;
  const own = cluster ? undefined : await ownRedis();
  const redisUrl = own?.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = cluster ? undefined : new Redis(redisUrl);
  const pooled: { bouncer?: PgBouncer } = {};
  try {
    const platform = await startQueuePlatform(
      root,
      { url: redisUrl, prefix: redisPrefix, clusterNodes: cluster?.seeds },
      { topology, databases, services, pooled },
    );
    const { serverToken, tenantId } = await createGame(platform.gateway.url);
    const tally = new Tally();
    const fleet = await openServers(platform.gateway.url, serverToken, tally);
    const meter = resourceMeter(platform, services, own && redis && new RedisMeter(redis, redisPrefix));
    await meter.start();
    const measured = await runLoadWindow(platform, services, fleet, tally, pacing);
    await meter.endOfLoad();
    await drain(fleet, tally);
    const resources = await meter.finish(
      { players: tally.accepted, matches: tally.completed },
      platform.statsDatabaseUrl,
    );
    const check = await checkDatabase(platform.statsDatabaseUrl);
    const completions = Number(process.env.BENCH_QUEUE_COMPLETIONS ?? 6000);
    const gatewayCompletions =
      completions > 0
        ? await runGatewayCompletions({
            gatewayUrl: platform.gateway.url,
            serverToken,
            tenantId,
            gameId: GAME_ID,
            statsDatabaseUrl: platform.statsDatabaseUrl,
            services: platform,
            matches: completions,
          })
        : undefined;
    const report = {
      topology,
      ...queueReport(tally, measured, check, pacing.batchSize),
      resources,
      ...(gatewayCompletions ? { gatewayCompletions } : {}),
    };
    console.log(hostedQueueMarkdown(report));
    return report;
  } finally {
    await Promise.all(services.map(stopService));
    if (redis) {
      await clearPrefix(redis, redisPrefix);
      redis.disconnect();
    }
    await own?.stop();
    await cluster?.stop();
    await pooled.bouncer?.stop();
    for (const db of databases) await db.drop();
  }
}

/**
 * The Redis the apps run on: one of the benchmark's own (so INFO counts its commands only), unless
 * the apps are pointed at a Redis Cluster (REDIS_CLUSTER_NODES) or BENCH_QUEUE_SHARED_REDIS=1
 * asks for REDIS_URL's server.
 */
async function ownRedis(): Promise<PrivateRedis | undefined> {
  if (process.env.REDIS_CLUSTER_NODES || process.env.BENCH_QUEUE_SHARED_REDIS === "1") return undefined;
  return startPrivateRedis();
}

/** The meters of the apps' processes, the benchmark's two databases and (when its own) Redis. */
function resourceMeter(
  platform: QueuePlatform,
  services: readonly Service[],
  redis: RedisMeter | undefined,
): ResourceMeter {
  const dbName = (url: string) => new URL(url).pathname.slice(1);
  const adminUrl = new URL(platform.statsDatabaseUrl);
  adminUrl.pathname = "/postgres";
  const postgres = new PostgresMeter(adminUrl.toString(), [
    dbName(platform.statsDatabaseUrl),
    dbName(platform.gatewayDatabaseUrl),
  ]);
  return new ResourceMeter(
    services,
    postgres,
    redis ? { meter: redis, server: "the benchmark's own redis-server" } : null,
  );
}

/** What a run starts and must stop: its topology, and the databases, services and pooler it made. */
interface QueueRun {
  topology: QueueTopology;
  databases: TestDatabase[];
  services: Service[];
  pooled: { bouncer?: PgBouncer };
}

/**
 * Stats' and the gateway's databases (added to `databases`, to be dropped), then the license
 * service, the matchmaker, stats and the gateway (added to `services`, to be stopped), on the
 * run's topology: behind PgBouncer, the apps' DATABASE_URL is the pooler's and their migrations'
 * the server's (the databases are migrated directly, as a migration job would).
 */
async function startQueuePlatform(
  root: string,
  redis: { url: string; prefix: string; clusterNodes?: string },
  run: QueueRun,
): Promise<QueuePlatform> {
  const database = async (app: string) => {
    const created = await createTestDatabase({
      schemaPath: join(root, "apps", app, "prisma", "schema.prisma"),
      migrationsDir: join(root, "apps", app, "prisma", "migrations"),
      prefix: `arena_bench_queue_${app}`,
    });
    run.databases.push(created);
    return created.url;
  };
  const statsDatabaseUrl = await database("stats");
  if (process.env.BENCH_PG_LOG) await logStatements(statsDatabaseUrl, process.env.BENCH_PG_LOG);
  const gatewayDatabaseUrl = await database("gateway");
  const { matchmaker } = await startLicensedMatchmaker(root, run.services);
  const reach = await databaseReach(run, [statsDatabaseUrl, gatewayDatabaseUrl]);
  const wiring = {
    ports: BENCH_PORTS,
    secrets: BENCH_SECRETS,
    databaseUrls: { stats: reach.url(statsDatabaseUrl), gateway: reach.url(gatewayDatabaseUrl) },
    redisUrl: redis.url,
    redisKeyPrefix: redis.prefix,
    ...(redis.clusterNodes ? { redisClusterNodes: redis.clusterNodes } : {}),
  };
  const stats = await startApp(root, "stats", wiring, {
    env: {
      MATCHMAKING_INTERVAL_MS: String(LOOP_INTERVAL_MS),
      ...reach.env(statsDatabaseUrl),
      ...(run.topology.database === "pgbouncer" ? { DATABASE_POOL_MODE: "transaction" } : {}),
      ...(process.env.BENCH_STATS_POOL ? { DATABASE_POOL_SIZE: process.env.BENCH_STATS_POOL } : {}),
    },
    flags: nodeFlags("BENCH_STATS_FLAGS"),
  });
  run.services.push(stats);
  const gateway = await startApp(root, "gateway", wiring, {
    // The tenant's request budget is not what is measured: high enough never to answer 429.
    env: { TENANT_RATE_LIMIT: "1000000000", ...reach.env(gatewayDatabaseUrl) },
    flags: nodeFlags("BENCH_GATEWAY_FLAGS"),
  });
  run.services.push(gateway);
  return { matchmaker, stats, gateway, statsDatabaseUrl, gatewayDatabaseUrl };
}

/** How the apps reach their databases: directly, or through a PgBouncer in transaction pooling. */
async function databaseReach(
  run: QueueRun,
  directUrls: string[],
): Promise<{ url(direct: string): string; env(direct: string): Record<string, string> }> {
  if (run.topology.database === "direct") return { url: (direct) => direct, env: () => ({}) };
  const bouncer = await startPgBouncer({ serverUrl: directUrls[0]!, poolMode: "transaction", poolSize: 20 });
  run.pooled.bouncer = bouncer;
  const pooledUrl = (direct: string) => bouncer.url(new URL(direct).pathname.slice(1));
  return { url: pooledUrl, env: (direct) => ({ DATABASE_MIGRATION_URL: direct }) };
}

/**
 * BENCH_PG_LOG: PostgreSQL logs every statement on stats' database, or with `explain` the plans
 * of those slower than 8 ms.
 */
async function logStatements(databaseUrl: string, mode: string): Promise<void> {
  const dbName = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  if (mode === "explain") {
    for (const setting of [
      "session_preload_libraries = 'auto_explain'",
      "auto_explain.log_min_duration = 8",
      "auto_explain.log_analyze = on",
      "auto_explain.log_buffers = on",
      "auto_explain.log_timing = on",
    ])
      await admin.query(`ALTER DATABASE "${dbName}" SET ${setting}`);
  } else {
    await admin.query(`ALTER DATABASE "${dbName}" SET log_min_duration_statement = 0`);
  }
  await admin.end();
}

/** A tenant with the benchmark's game, made by its admin; answers it and its game servers' token. */
async function createGame(gatewayUrl: string): Promise<{ serverToken: string; tenantId: string }> {
  const tenant = await createTenant(gatewayUrl);
  const adminToken = await userToken(gatewayUrl, tenant, "admin");
  const serverToken = await userToken(gatewayUrl, tenant, "server");
  await json(`${gatewayUrl}/games/${GAME_ID}`, {
    method: "PUT",
    headers: { authorization: adminToken, "content-type": "application/json" },
    body: JSON.stringify(GAME),
  });
  return { serverToken, tenantId: tenant.tenantId };
}

/**
 * The game servers, the even ones over REST and the odd ones over WebSocket; each confirms, then
 * completes, every match it receives.
 */
async function openServers(gatewayUrl: string, serverToken: string, tally: Tally): Promise<Fleet> {
  const handling = new Set<Promise<void>>();
  const transports: Transport[] = [];
  const events = (transport: () => Transport) => ({
    error: (what: string) => tally.error(what),
    match: (match: DeliveredMatch) => {
      const t = transport();
      if (!tally.suggested(match, t.kind)) return;
      const played = (async () => {
        if ((await t.confirm(match.id)) && (await t.complete(match.id, randomResult(match))))
          tally.completion();
      })();
      handling.add(played);
      void played.finally(() => handling.delete(played));
    },
  });
  for (let i = 0; i < SERVERS; i++) {
    let transport: Transport | undefined;
    const serverEvents = events(() => transport!);
    transport =
      i % 2 === 0
        ? new RestTransport(gatewayUrl, serverToken, GAME_ID, serverEvents, POLL_MS)
        : await WebSocketTransport.open(gatewayUrl, serverToken, GAME_ID, serverEvents, WS_MAX_IN_FLIGHT);
    transports.push(transport);
  }
  return { transports, handling };
}

const scrapePlatform = async (platform: QueuePlatform): Promise<PlatformMetrics> => ({
  stats: await scrape(platform.stats.url),
  matchmaker: await scrape(platform.matchmaker.url),
});

/**
 * The measured window: every server adds its batches for `seconds`, while the stats database is
 * analyzed once and the waiting players are sampled; metrics and CPU are read at both ends.
 */
async function runLoadWindow(
  platform: QueuePlatform,
  services: readonly Service[],
  fleet: Fleet,
  tally: Tally,
  { seconds, offeredRate, batchSize }: Pacing,
): Promise<LoadWindow> {
  console.log(
    `  ${SERVERS} servers (${SERVERS / 2} REST, ${SERVERS / 2} WebSocket), ${batchSize} players per server every ${BATCH_INTERVAL_MS} ms (${offeredRate}/s offered), ${seconds} s…`,
  );
  const runTag = Date.now().toString(36);
  const before = await scrapePlatform(platform);
  const cpuBefore = cpuSnapshot(services);
  const started = performance.now();
  const end = started + seconds * 1000;
  const waiting = { max: 0, last: 0 };
  const analyzed = analyzeLater(platform.statsDatabaseUrl);
  const sampler = sampleWaiting(platform.stats.url, end, waiting);
  await Promise.all(
    fleet.transports.map((transport, server) =>
      feedServer(transport, server, { started, end, batchSize, runTag }, tally),
    ),
  );
  await analyzed;
  const elapsed = (performance.now() - started) / 1000;
  tally.windowOpen = false;
  await sampler;
  const after = await scrapePlatform(platform);
  const cpuCores = cpuCoresSince(cpuBefore, services, elapsed);
  return { elapsed, before, after, cpuCores, waiting };
}

/**
 * Five seconds in, the tables have rows: ANALYZE them, as autovacuum has on any database
 * that has run a minute. Without it the foreign-key checks stay planned as on empty tables
 * (sequential scans, ~1 ms per roster row) and the loop falls behind: see the README.
 */
async function analyzeLater(databaseUrl: string): Promise<void> {
  await sleep(ANALYZE_AFTER_MS);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("ANALYZE");
  } finally {
    await client.end();
  }
}

/** Each second until `end`, the players waiting at stats' last tick, into `waiting`. */
async function sampleWaiting(statsUrl: string, end: number, waiting: LoadWindow["waiting"]): Promise<void> {
  while (performance.now() < end) {
    await sleep(1000);
    const current = total(await scrape(statsUrl), "stats_queue_waiting_players", { game: GAME_ID });
    waiting.max = Math.max(waiting.max, current);
    waiting.last = current;
  }
}

/**
 * One server's adds: a batch of new players every BATCH_INTERVAL_MS from its own offset in the
 * interval until `end`, at most MAX_OUTSTANDING_ADDS unanswered at once.
 */
async function feedServer(
  transport: Transport,
  server: number,
  schedule: { started: number; end: number; batchSize: number; runTag: string },
  tally: Tally,
): Promise<void> {
  const { started, end, batchSize, runTag } = schedule;
  let next = started + (server * BATCH_INTERVAL_MS) / SERVERS;
  let count = 0;
  const outstanding = new Set<Promise<void>>();
  while (next < end) {
    await sleep(next - performance.now());
    while (outstanding.size >= MAX_OUTSTANDING_ADDS) await Promise.race(outstanding);
    const ids = Array.from({ length: batchSize }, () => `${runTag}-s${server}-${count++}`);
    tally.offered += ids.length;
    const sent = performance.now();
    const adding = transport.add(ids).then((ok) => {
      tally.addTimes[transport.kind].push(performance.now() - sent);
      if (ok) tally.added(ids);
    });
    outstanding.add(adding);
    void adding.finally(() => outstanding.delete(adding));
    next = Math.max(next + BATCH_INTERVAL_MS, performance.now());
  }
  await Promise.all(outstanding);
}

/**
 * After the window: the players still waiting get DRAIN_SECONDS to be suggested, every match under
 * way is played to its end, and the servers close.
 */
async function drain({ transports, handling }: Fleet, tally: Tally): Promise<void> {
  const drainUntil = performance.now() + DRAIN_SECONDS * 1000;
  while (tally.unmatched > 0 && performance.now() < drainUntil) await sleep(100);
  while (handling.size > 0) await Promise.all([...handling]);
  await Promise.all(transports.map((t) => t.close()));
}

function queueReport(
  tally: Tally,
  { elapsed, ...measured }: LoadWindow,
  check: Awaited<ReturnType<typeof checkDatabase>>,
  batchSize: number,
): HostedQueueReport {
  const sorted = ascending(tally.latencies);
  return {
    seconds: round(elapsed, 1),
    loopIntervalMs: LOOP_INTERVAL_MS,
    game: {
      gameId: GAME_ID,
      mode: "2v2",
      targetWaitingTime: GAME.targetWaitingTime,
      servers: GAME.servers.length,
    },
    servers: { rest: SERVERS / 2, websocket: SERVERS / 2 },
    pacing: {
      batchSize,
      batchIntervalMs: BATCH_INTERVAL_MS,
      offeredPerSecond: Math.round(tally.offered / elapsed),
    },
    players: {
      offered: tally.offered,
      accepted: tally.accepted,
      acceptedPerSecond: Math.round(tally.accepted / elapsed),
      unmatchedAtEnd: tally.unmatched,
    },
    submitToSuggestion: {
      players: sorted.length,
      p50Ms: Math.round(percentileOfSorted(sorted, 50)),
      p95Ms: Math.round(percentileOfSorted(sorted, 95)),
      p99Ms: Math.round(percentileOfSorted(sorted, 99)),
      maxMs: Math.round(sorted.at(-1) ?? 0),
    },
    matches: {
      received: tally.received,
      receivedTwice: tally.receivedTwice,
      completed: tally.completed,
      completionsPerSecond: Math.round(tally.completedInWindow / elapsed),
    },
    errors: {
      count: tally.errors,
      samples: [...tally.errorSamples].slice(0, 10).map(([what, n]) => `${n}× ${what}`),
    },
    playersInTwoMatches: { seenByServers: tally.playersInTwoMatches, inDatabase: check.playersInTwoMatches },
    databaseMatches: check.matchesByStatus,
    profile: queueProfile(tally, measured),
    targets: {
      acceptedPerSecond: TARGET_PLAYERS_PER_SECOND,
      p95Ms: LOOP_INTERVAL_MS + P95_OVER_INTERVAL_MS,
      errors: 0,
      playersInTwoMatches: 0,
    },
  };
}

/** Where the time went, from the apps' metrics over the window and the servers' own timings. */
function queueProfile(
  tally: Tally,
  { before, after, cpuCores, waiting }: Omit<LoadWindow, "elapsed">,
): QueueProfile {
  const statsDelta = (name: string, where: Record<string, string>) =>
    delta(before.stats, after.stats, name, where);
  const batchSizes = (histogram: string) => {
    const count = statsDelta(`${histogram}_count`, {});
    const size = statsDelta(`${histogram}_sum`, {});
    return { count, meanSize: count === 0 ? 0 : round(size / count, 1) };
  };
  return {
    tick: histogramDelta(before.stats, after.stats, "stats_matchmaking_tick_seconds", { game: GAME_ID }),
    tickSteps: TICK_STEPS.map((step) => ({
      step,
      ...histogramDelta(before.stats, after.stats, "stats_matchmaking_tick_step_seconds", {
        game: GAME_ID,
        step,
      }),
    })),
    matchmakerCall: histogramDelta(before.matchmaker, after.matchmaker, "http_request_duration_seconds", {
      route: "/matchmaking/basic",
    }),
    statsRoutes: statsRoutes(before.stats, after.stats),
    pushes: {
      offered: statsDelta("stats_match_pushes_total", { outcome: "offered" }),
      unclaimed: statsDelta("stats_match_pushes_total", { outcome: "unclaimed" }),
    },
    suggestions: {
      stored: statsDelta("stats_matches_formed_total", { game: GAME_ID }),
      dropped: statsDelta("stats_suggestions_dropped_total", { game: GAME_ID }),
    },
    waitingPlayers: waiting,
    cpuCores,
    completionTransactions: batchSizes("stats_match_completion_batch_size"),
    confirmationStatements: batchSizes("stats_match_confirmation_batch_size"),
    addAnswered: { rest: percentiles(tally.addTimes.rest), websocket: percentiles(tally.addTimes.websocket) },
  };
}

/** Stats' own time on the hosted routes the game servers call. */
function statsRoutes(before: Sample[], after: Sample[]): QueueProfile["statsRoutes"] {
  const routeOf = (method: string, route: string) => ({
    route: `${method} ${route}`,
    ...histogramDelta(before, after, "http_request_duration_seconds", { method, route }),
  });
  return [
    routeOf("POST", "/games/:gameId/players"),
    routeOf("POST", "/games/:gameId/matches"),
    routeOf("POST", "/games/:gameId/matches/:matchId/statuses/confirmed"),
    routeOf("POST", "/games/:gameId/matches/:matchId/statuses/completed"),
  ];
}

const delta = (
  before: Parameters<typeof total>[0],
  after: Parameters<typeof total>[0],
  name: string,
  where: Record<string, string>,
) => total(after, name, where) - total(before, name, where);

interface CpuSnapshot {
  machine: { busy: number; total: number };
  bench: NodeJS.CpuUsage;
  services: number[];
}

function cpuSnapshot(services: readonly Service[]): CpuSnapshot {
  return {
    machine: machineCpuSeconds(),
    bench: process.cpuUsage(),
    services: services.map((s) => cpuSeconds(s.child.pid!)),
  };
}

/** Cores used by each app, the benchmark's own process, and the rest (PostgreSQL, Redis, …). */
function cpuCoresSince(before: CpuSnapshot, services: readonly Service[], seconds: number) {
  const now = cpuSnapshot(services);
  const cores: Record<string, number> = {};
  let apps = 0;
  services.forEach((s, i) => {
    const used = now.services[i]! - before.services[i]!;
    apps += used;
    cores[s.name] = round(used / seconds);
  });
  const bench = process.cpuUsage(before.bench);
  const benchSeconds = (bench.user + bench.system) / 1e6;
  cores["bench (load generator)"] = round(benchSeconds / seconds);
  const busy = now.machine.busy - before.machine.busy;
  cores["rest (PostgreSQL, Redis, …)"] = round(Math.max(0, busy - apps - benchSeconds) / seconds);
  cores["machine busy"] = round(busy / seconds);
  return cores;
}

/** Players in the rosters of two matches that did not fail, and the matches per status. */
async function checkDatabase(
  databaseUrl: string,
): Promise<{ playersInTwoMatches: number; matchesByStatus: Record<string, number> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const twice = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM (
         SELECT p.tenant_id, p.player_id FROM match_players p
           JOIN matches m ON m.tenant_id = p.tenant_id AND m.match_id = p.match_id
          WHERE m.status <> 'failed'
          GROUP BY p.tenant_id, p.player_id HAVING count(DISTINCT p.match_id) > 1) d`,
    );
    const statuses = await client.query<{ status: string; n: string }>(
      `SELECT status::text AS status, count(*) AS n FROM matches GROUP BY status ORDER BY status`,
    );
    return {
      playersInTwoMatches: Number(twice.rows[0]!.n),
      matchesByStatus: Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)])),
    };
  } finally {
    await client.end();
  }
}

const upTo = (ms: number | null) => (ms === null ? "above the largest bucket" : `≤ ${ms} ms`);

/** The figures as Markdown, for bench/results/latest.md. */
export function hostedQueueMarkdown(r: HostedQueueReport): string {
  const met = (ok: boolean) => (ok ? "yes" : "**no**");
  const s = r.submitToSuggestion;
  const p = r.profile;
  const rows = [
    [
      "players accepted (2xx on add)",
      `${r.players.acceptedPerSecond.toLocaleString("en")}/s (${r.pacing.offeredPerSecond.toLocaleString("en")}/s offered)`,
      `≥ ${r.targets.acceptedPerSecond.toLocaleString("en")}/s`,
      met(r.players.acceptedPerSecond >= r.targets.acceptedPerSecond),
    ],
    [
      "submit → suggestion, per player",
      `p50 ${s.p50Ms} ms, p95 ${s.p95Ms} ms (p99 ${s.p99Ms} ms, max ${s.maxMs} ms)`,
      `p95 ≤ ${r.targets.p95Ms} ms`,
      met(s.p95Ms <= r.targets.p95Ms && s.players > 0),
    ],
    [
      "completions",
      `${r.matches.completionsPerSecond}/s (${r.matches.completed.toLocaleString("en")} in all)`,
      "",
      "",
    ],
    ["errors", String(r.errors.count), "0", met(r.errors.count === r.targets.errors)],
    [
      "players in two matches",
      `${r.playersInTwoMatches.seenByServers} seen by the servers, ${r.playersInTwoMatches.inDatabase} in PostgreSQL`,
      "0",
      met(r.playersInTwoMatches.seenByServers + r.playersInTwoMatches.inDatabase === 0),
    ],
  ];
  const statuses = Object.entries(r.databaseMatches)
    .map(([status, n]) => `${n.toLocaleString("en")} ${status}`)
    .join(", ");
  const routes = p.statsRoutes
    .map((x) => `${x.route} ${x.count.toLocaleString("en")}× mean ${x.meanMs} ms (p95 ${upTo(x.p95UpToMs)})`)
    .join("; ");
  const cpu = Object.entries(p.cpuCores)
    .map(([name, cores]) => `${name} ${cores}`)
    .join(", ");
  return [
    `**Hosted queue**: license, matchmaker, stats (\`MATCHMAKING_INTERVAL_MS=${r.loopIntervalMs}\`) and gateway as processes; game \`${r.game.gameId}\` (${r.game.mode}, \`targetWaitingTime: ${r.game.targetWaitingTime}\`, ${r.game.servers} servers); ${r.servers.rest} game servers over REST (polling \`POST /games/{gameId}/matches\` every ${POLL_MS} ms) and ${r.servers.websocket} over one subscribed WebSocket each, for ${r.seconds} s; each adds ${r.pacing.batchSize} unique players every ${r.pacing.batchIntervalMs} ms and confirms, then completes with random ranks, every match it receives. Latency runs from the add's answer to the first sight of the player's match by the server holding it.`,
    "",
    "| measure | figure | target | met |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "",
    `Matches received: ${r.matches.received.websocket.toLocaleString("en")} pushed over WebSocket, ${r.matches.received.rest.toLocaleString("en")} fetched over REST (pushes go to one subscribed connection; REST gets what nobody was pushed), ${r.matches.receivedTwice} received twice. Players accepted but never suggested ${DRAIN_SECONDS} s after the load stopped: ${r.players.unmatchedAtEnd.toLocaleString("en")}. Matches in PostgreSQL at the end: ${statuses}.`,
    ...(r.errors.samples.length > 0 ? ["", `Errors: ${r.errors.samples.join("; ")}.`] : []),
    "",
    `Where the time goes (over the load window): stats loop tick ${p.tick.count}× mean ${p.tick.meanMs} ms (p95 ${upTo(p.tick.p95UpToMs)}; mean per step: ${p.tickSteps.map((t) => `${t.step} ${t.meanMs} ms`).join(", ")}); matchmaker call ${p.matchmakerCall.count}× mean ${p.matchmakerCall.meanMs} ms; waiting players at a tick max ${p.waitingPlayers.max.toLocaleString("en")}, last ${p.waitingPlayers.last.toLocaleString("en")}; suggestions ${p.suggestions.stored.toLocaleString("en")} stored, ${p.suggestions.dropped.toLocaleString("en")} dropped; pushes ${p.pushes.offered.toLocaleString("en")} offered, ${p.pushes.unclaimed.toLocaleString("en")} unclaimed. Completion transactions ${p.completionTransactions.count.toLocaleString("en")}, ${p.completionTransactions.meanSize} completions each on average${p.confirmationStatements?.count ? `; confirmation statements ${p.confirmationStatements.count.toLocaleString("en")}, ${p.confirmationStatements.meanSize} confirmations each` : ""}. Adds answered, as the servers saw them: REST p50 ${p.addAnswered.rest.p50Ms} ms, p95 ${p.addAnswered.rest.p95Ms} ms; WebSocket p50 ${p.addAnswered.websocket.p50Ms} ms, p95 ${p.addAnswered.websocket.p95Ms} ms. Stats routes: ${routes}. CPU (cores of ${cpus().length}): ${cpu}.`,
    "",
    ...(r.resources ? [resourceMarkdown(r.resources)] : []),
    ...(r.gatewayCompletions ? ["", gatewayCompletionsMarkdown(r.gatewayCompletions), ""] : []),
  ].join("\n");
}
