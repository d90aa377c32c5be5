import { cpus, loadavg } from "node:os";
import { round } from "./http-timing.js";
import type { PostgresMeter, PostgresUsage } from "./postgres-usage.js";
import type { Service } from "./processes.js";
import { cpuSeconds } from "./prometheus-text.js";
import { sleep } from "./queue-servers.js";
import type { RedisMeter, RedisUsage } from "./redis-usage.js";

/**
 * Where the resources of a run went, per player queued (each one matched, confirmed and completed):
 * measured from the start of the load to the end of the drain, so every accepted player's whole
 * trip is inside.
 */
export interface ResourceReport {
  seconds: number;
  players: number;
  matches: number;
  /** os.loadavg() at the start and the end: the machine is shared, so figures are read beside it. */
  loadAverage: { start: number[]; end: number[]; cores: number };
  apps: Array<{ app: string; cpuSeconds: number; cpuMsPerPlayer: number; playersPerSecondPerCore: number }>;
  postgres: PostgresUsage & { perPlayer: PostgresPerPlayer };
  /** null when the apps ran on a Redis Cluster (REDIS_CLUSTER_NODES): its INFO is per node. */
  redis: (RedisUsage & { server: string; perPlayer: RedisPerPlayer }) | null;
}

interface PostgresPerPlayer {
  backendCpuMs: number;
  transactions: number;
  rowsWritten: number;
  rowsFetched: number;
  blocksTouched: number;
  walBytes: number;
  /** Bytes of stats' kept tables at the end, per player queued (rows, indexes and TOAST). */
  storedBytes: number;
}

interface RedisPerPlayer {
  commands: number;
  cpuUs: number;
  /** MEMORY USAGE of the leaderboards over their entries. */
  leaderboardEntryBytes: number | null;
}

/** Samples PostgreSQL's backends each second while the load runs, and reads every meter at both ends. */
export class ResourceMeter {
  private appsBefore: number[] = [];
  private loadStart: number[] = [];
  private started = 0;
  private sampling = false;
  private sampler: Promise<void> = Promise.resolve();

  constructor(
    private readonly services: readonly Service[],
    private readonly postgres: PostgresMeter,
    private readonly redis: { meter: RedisMeter; server: string } | null,
  ) {}

  async start(): Promise<void> {
    await this.postgres.start();
    await this.redis?.meter.start();
    this.loadStart = loadavg();
    this.appsBefore = this.services.map((s) => cpuSeconds(s.child.pid!));
    this.started = performance.now();
    this.sampling = true;
    this.sampler = (async () => {
      while (this.sampling) {
        await sleep(1000);
        await this.postgres.sample();
      }
    })();
  }

  /** Marks the end of the load (Redis' memory then), before the drain. */
  async endOfLoad(): Promise<void> {
    await this.redis?.meter.endOfLoad();
  }

  async finish(
    tally: { players: number; matches: number },
    statsDatabaseUrl: string,
  ): Promise<ResourceReport> {
    const seconds = (performance.now() - this.started) / 1000;
    const appsAfter = this.services.map((s) => cpuSeconds(s.child.pid!));
    const loadEnd = loadavg();
    this.sampling = false;
    await this.sampler;
    // Backends report their pg_stat_database counts when idle, at most once a second.
    await sleep(1500);
    const postgres = await this.postgres.finish(statsDatabaseUrl);
    const redis = this.redis ? { server: this.redis.server, ...(await this.redis.meter.finish()) } : null;
    const { players } = tally;
    const apps = this.services.map((s, i) => {
      const used = appsAfter[i]! - this.appsBefore[i]!;
      return {
        app: s.name,
        cpuSeconds: round(used, 2),
        cpuMsPerPlayer: round((used * 1000) / players, 3),
        playersPerSecondPerCore: used === 0 ? 0 : Math.round(players / used),
      };
    });
    return {
      seconds: round(seconds, 1),
      players,
      matches: tally.matches,
      loadAverage: {
        start: this.loadStart.map((l) => round(l)),
        end: loadEnd.map((l) => round(l)),
        cores: cpus().length,
      },
      apps,
      postgres: { ...postgres, perPlayer: postgresPerPlayer(postgres, players) },
      redis: redis && { ...redis, perPlayer: redisPerPlayer(redis, players) },
    };
  }
}

/** Tables whose rows are deleted once handled: their size is dead rows until vacuum, not data kept. */
const TRANSIENT_TABLES = new Set(["queue_players", "leaderboard_outbox", "backfill_requests"]);

function postgresPerPlayer(p: PostgresUsage, players: number): PostgresPerPlayer {
  const per = (n: number, digits = 2) => round(n / players, digits);
  const c = p.counters;
  return {
    backendCpuMs: per(p.backendsCpuSeconds * 1000, 3),
    transactions: per(c.xact_commit),
    rowsWritten: per(c.tup_inserted + c.tup_updated + c.tup_deleted),
    rowsFetched: per(c.tup_fetched),
    blocksTouched: per(c.blks_hit + c.blks_read),
    walBytes: Math.round((p.wal.benchBytes ?? p.wal.serverBytes) / players),
    storedBytes: Math.round(
      p.tables.filter((t) => !TRANSIENT_TABLES.has(t.table)).reduce((sum, t) => sum + t.bytes, 0) / players,
    ),
  };
}

function redisPerPlayer(r: RedisUsage, players: number): RedisPerPlayer {
  const boards = r.keyFamilies.filter((f) => f.type === "zset" && f.family.includes(":board:"));
  const entries = boards.reduce((sum, f) => sum + f.elements, 0);
  return {
    commands: round(r.commands.reduce((sum, c) => sum + c.calls, 0) / players),
    cpuUs: Math.round((r.cpuSeconds * 1e6) / players),
    leaderboardEntryBytes: entries === 0 ? null : round(boards.reduce((s, f) => s + f.bytes, 0) / entries, 1),
  };
}

const n = (x: number) => x.toLocaleString("en");
const mib = (bytes: number) => `${round(bytes / 2 ** 20, 1)} MiB`;

/** "Where the resources go, per player", for the hosted queue's section of bench/results/latest.md. */
export function resourceMarkdown(r: ResourceReport): string {
  const pg = r.postgres;
  const pp = pg.perPlayer;
  const c = pg.counters;
  const apps = r.apps
    .map((a) => `| ${a.app} | ${a.cpuSeconds} | ${a.cpuMsPerPlayer} | ${n(a.playersPerSecondPerCore)} |`)
    .join("\n");
  const wal =
    pg.wal.benchBytes === null
      ? `${mib(pg.wal.serverBytes)} for the whole server (the benchmark's share unread)`
      : `${mib(pg.wal.benchBytes)} of records on the benchmark's databases (pg_walinspect; ${mib(pg.wal.serverBytes)} for the whole server, other work included)`;
  const tables = pg.tables
    .filter((t) => t.rows >= 100 || TRANSIENT_TABLES.has(t.table))
    .map((t) => {
      if (TRANSIENT_TABLES.has(t.table))
        return `${t.table} ${n(t.rows)} rows left, ${mib(t.bytes)} (dead rows until vacuum)`;
      return `${t.table} ${n(t.rows)} rows, ${mib(t.bytes)} (${Math.round(t.bytes / t.rows)} B/row)`;
    })
    .join("; ");
  return [
    `**Where the resources go, per player** (one player queued, matched, confirmed and completed; from the start of the load to the end of the drain, ${r.seconds} s, ${n(r.players)} players, ${n(r.matches)} matches). Load average ${r.loadAverage.start.join(" / ")} at the start and ${r.loadAverage.end.join(" / ")} at the end on ${r.loadAverage.cores} cores: the machine was shared with other work, so CPU figures carry its contention (cache and scheduling), and throughput is not the machine's own.`,
    "",
    "| app | CPU s | CPU ms per player | players/s per core |",
    "|---|---|---|---|",
    apps,
    "",
    `PostgreSQL: backends of the benchmark's databases ${round(pg.backendsCpuSeconds, 2)} CPU s (**${pp.backendCpuMs} ms per player**), shared server processes ${round(pg.sharedCpuSeconds, 2)} s, every postgres process ${round(pg.allPostgresCpuSeconds, 2)} s (other work included). Per player: **${pp.transactions} transactions**, ${pp.rowsWritten} rows written (${n(c.tup_inserted)} inserted, ${n(c.tup_updated)} updated, ${n(c.tup_deleted)} deleted in all), ${pp.rowsFetched} rows fetched, ${pp.blocksTouched} blocks touched (${n(c.blks_read)} read from outside shared buffers in all), **${n(pp.walBytes)} B of WAL** (${wal}), ${n(pp.storedBytes)} B kept in stats' tables (the queue's transient tables left out). Tables at the end: ${tables}.`,
    "",
    redisMarkdown(r),
    "",
  ].join("\n");
}

function redisMarkdown(r: ResourceReport): string {
  const redis = r.redis;
  if (redis === null) return "Redis: not measured (the apps ran on a Redis Cluster).";
  const commands = redis.commands
    .slice(0, 12)
    .map((c) => `${c.command} ${n(c.calls)}× ${round(c.usec / Math.max(1, c.calls), 2)} µs`)
    .join(", ");
  const families = redis.keyFamilies
    .slice(0, 8)
    .map((f) => `\`${f.family}\` ${f.type} ${n(f.keys)} keys, ${n(f.elements)} elements, ${mib(f.bytes)}`)
    .join("; ");
  const entry = redis.perPlayer.leaderboardEntryBytes;
  return `Redis (${redis.server}): ${round(redis.cpuSeconds, 2)} CPU s (**${n(redis.perPlayer.cpuUs)} µs per player**), **${redis.perPlayer.commands} commands per player**; busiest (calls, mean µs each): ${commands}. used_memory ${mib(redis.usedMemoryBytes.start)} at the start, ${mib(redis.usedMemoryBytes.endOfLoad)} at the end of the load, ${mib(redis.usedMemoryBytes.end)} after the drain; the queue's waiting players live in PostgreSQL (queue_players), not Redis. Keys at the end: ${families}${entry === null ? "" : `; **${entry} B per leaderboard entry**`}.`;
}
