import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { cpuSeconds } from "./prometheus-text.js";

/** The pg_stat_database counters the per-player figures are made of. */
const COUNTERS = [
  "xact_commit",
  "xact_rollback",
  "tup_inserted",
  "tup_updated",
  "tup_deleted",
  "tup_fetched",
  "blks_hit",
  "blks_read",
] as const;
type Counter = (typeof COUNTERS)[number];

export interface PostgresUsage {
  /** CPU of the backends serving the benchmark's databases (sampled each second, exited ones included). */
  backendsCpuSeconds: number;
  /** CPU of the server's shared processes (WAL writer, checkpointer, background writer, …). */
  sharedCpuSeconds: number;
  /**
   * CPU of every `postgres` process alive at the end, over the run (those started since counted
   * whole), other work on this server included; processes that exited in between are missing.
   */
  allPostgresCpuSeconds: number;
  /** pg_stat_database growth over the benchmark's databases. */
  counters: Record<Counter, number>;
  wal: {
    /** pg_current_wal_lsn() growth: the whole server, other databases' writes included. */
    serverBytes: number;
    /** Bytes of the WAL records touching the benchmark's databases (pg_walinspect), null when unread. */
    benchBytes: number | null;
  };
  /** Each table of stats' database at the end: rows and size with indexes and TOAST. */
  tables: Array<{ table: string; rows: number; bytes: number }>;
}

const SHARED_PROCESSES = ["checkpointer", "background writer", "walwriter", "autovacuum launcher"];

/** CPU seconds of a process, or undefined once it has exited. */
function cpuOf(pid: number): number | undefined {
  try {
    return cpuSeconds(pid);
  } catch {
    return undefined;
  }
}

/** CPU seconds of each `postgres` process on the machine, by pid. */
function postgresProcesses(): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.includes(" (postgres) ")) cpu.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {} // exited between the listing and the read
  }
  return cpu;
}

function cpuSince(before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, cpu] of postgresProcesses()) sum += cpu - (before.get(pid) ?? 0);
  return sum;
}

/**
 * Measures what the benchmark costs PostgreSQL, from `start()` to `finish()`: call `sample()`
 * about once a second, so a backend that exits in between keeps the CPU it was last seen with.
 */
export class PostgresMeter {
  private readonly admin: pg.Client;
  /** Per process: CPU when first seen (0 if it started after `start()`), and when last seen. */
  private readonly backends = new Map<number, { first: number; last: number }>();
  private readonly shared = new Map<number, { first: number; last: number }>();
  private started = false;
  private countersBefore: Record<Counter, number> | undefined;
  private lsnBefore = "";
  private allBefore = new Map<number, number>();

  constructor(
    adminUrl: string,
    private readonly databases: readonly string[],
  ) {
    this.admin = new pg.Client({ connectionString: adminUrl });
  }

  async start(): Promise<void> {
    await this.admin.connect();
    await this.sample();
    this.started = true;
    this.countersBefore = await this.counters();
    this.lsnBefore = (await this.admin.query<{ lsn: string }>("SELECT pg_current_wal_lsn() AS lsn"))
      .rows[0]!.lsn;
    this.allBefore = postgresProcesses();
  }

  /** Records the CPU of every backend of the benchmark's databases and of the shared processes. */
  async sample(): Promise<void> {
    const { rows } = await this.admin.query<{ pid: number; ours: boolean }>(
      `SELECT pid, datname = ANY($1) AS ours FROM pg_stat_activity
        WHERE datname = ANY($1) OR backend_type = ANY($2)`,
      [this.databases, SHARED_PROCESSES],
    );
    for (const { pid, ours } of rows) {
      const cpu = cpuOf(pid);
      if (cpu === undefined) continue;
      const seen = (ours ? this.backends : this.shared).get(pid);
      if (seen) seen.last = cpu;
      else (ours ? this.backends : this.shared).set(pid, { first: this.started ? 0 : cpu, last: cpu });
    }
  }

  async finish(statsDatabaseUrl: string): Promise<PostgresUsage> {
    await this.sample();
    const lsnAfter = (await this.admin.query<{ lsn: string }>("SELECT pg_current_wal_lsn() AS lsn")).rows[0]!
      .lsn;
    const counters = await this.counters();
    const serverBytes = Number(
      (
        await this.admin.query<{ b: string }>("SELECT pg_wal_lsn_diff($1, $2) AS b", [
          lsnAfter,
          this.lsnBefore,
        ])
      ).rows[0]!.b,
    );
    const used = (m: Map<number, { first: number; last: number }>) =>
      [...m.values()].reduce((sum, p) => sum + p.last - p.first, 0);
    const usage: PostgresUsage = {
      backendsCpuSeconds: used(this.backends),
      sharedCpuSeconds: used(this.shared),
      allPostgresCpuSeconds: cpuSince(this.allBefore),
      counters: Object.fromEntries(COUNTERS.map((c) => [c, counters[c] - this.countersBefore![c]])) as Record<
        Counter,
        number
      >,
      wal: { serverBytes, benchBytes: await this.benchWal(statsDatabaseUrl, this.lsnBefore, lsnAfter) },
      tables: await tableSizes(statsDatabaseUrl),
    };
    await this.admin.end();
    return usage;
  }

  private async counters(): Promise<Record<Counter, number>> {
    const { rows } = await this.admin.query<Record<Counter, string>>(
      `SELECT ${COUNTERS.map((c) => `sum(${c}) AS ${c}`).join(", ")} FROM pg_stat_database WHERE datname = ANY($1)`,
      [this.databases],
    );
    return Object.fromEntries(COUNTERS.map((c) => [c, Number(rows[0]![c])])) as Record<Counter, number>;
  }

  /**
   * The WAL the benchmark's databases wrote: records with a block of theirs, and the commit records
   * of the transactions that wrote those. Read with pg_walinspect (in stats' throw-away database);
   * null when the WAL is already recycled or the extension is missing.
   */
  private async benchWal(statsDatabaseUrl: string, from: string, to: string): Promise<number | null> {
    const client = new pg.Client({ connectionString: statsDatabaseUrl });
    await client.connect();
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
      const oids = await client.query<{ oid: string }>(
        "SELECT oid FROM pg_database WHERE datname = ANY($1)",
        [this.databases],
      );
      const pattern = ` rel \\d+/(${oids.rows.map((r) => r.oid).join("|")})/`;
      const { rows } = await client.query<{ bytes: string }>(
        `WITH r AS (SELECT xid::text AS xid, record_length, block_ref FROM pg_get_wal_records_info($1, $2)),
              ours AS (SELECT DISTINCT xid FROM r WHERE block_ref ~ $3 AND xid <> '0')
         SELECT coalesce(sum(record_length), 0) AS bytes FROM r
          WHERE block_ref ~ $3 OR xid IN (SELECT xid FROM ours)`,
        [from, to, pattern],
      );
      return Number(rows[0]!.bytes);
    } catch (err) {
      console.warn(`  WAL of the benchmark's databases not read: ${(err as Error).message}`);
      return null;
    } finally {
      await client.end();
    }
  }
}

/** Rows (counted) and bytes (pg_total_relation_size) of each table of a database. */
async function tableSizes(databaseUrl: string): Promise<PostgresUsage["tables"]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ relname: string; bytes: string }>(
      `SELECT relname, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables
        WHERE relname NOT LIKE '\\_prisma%' ORDER BY relname`,
    );
    const tables: PostgresUsage["tables"] = [];
    for (const { relname, bytes } of rows) {
      const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${relname}"`);
      tables.push({ table: relname, rows: Number(count.rows[0]!.n), bytes: Number(bytes) });
    }
    return tables;
  } finally {
    await client.end();
  }
}
