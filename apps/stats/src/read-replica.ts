import { COMMITTED_WAL_POSITION_SQL } from "@arena/database";
import { Gauge, isDependencyUnreachable } from "@arena/service-kit";
import type { Database, SqlPool } from "./db.js";

/** A PostgreSQL server to read from: Prisma for the ordinary reads, the pool for the pages. */
export interface ReadTarget {
  db: Database;
  pool: SqlPool;
}

/** How long a read that must be current waits for the replica before it goes to the primary. */
const DEFAULT_CATCH_UP_MS = 2_000;
const CATCH_UP_POLL_MS = 20;

/**
 * Where the reads that tolerate a little staleness go (DATABASE_READ_URL): player statistics and
 * history, season lists, leaderboard rebuilds. Without a replica every read goes to the primary.
 * Writes, and every read inside a transaction, always use the primary: they are not routed here.
 */
export class ReadReplica {
  constructor(
    private readonly primary: ReadTarget,
    /** The streaming replica; none: reads go to the primary. */
    private readonly replica?: ReadTarget,
    private readonly catchUpMs = DEFAULT_CATCH_UP_MS,
  ) {}

  /** Whether reads have a replica to go to (DATABASE_READ_URL is set). */
  get routed(): boolean {
    return this.replica !== undefined;
  }

  /**
   * Runs a stale-tolerant read on the replica when there is one; on the primary when there is
   * none, or when the replica cannot be reached (down, restarting, out of connections): a replica
   * outage costs the primary those reads, not the answers.
   */
  async read<T>(query: (target: ReadTarget) => Promise<T>): Promise<T> {
    if (!this.replica) return query(this.primary);
    try {
      return await query(this.replica);
    } catch (err) {
      if (!isDependencyUnreachable(err)) throw err;
      return query(this.primary);
    }
  }

  /**
   * Where a read goes that must see every transaction committed before it was asked (a leaderboard
   * rebuild: a write that reached Redis before it emptied exists only in PostgreSQL): the replica
   * once it has replayed the WAL of every transaction the primary committed (acknowledged
   * asynchronous commits included), else the primary (after `catchUpMs`, or when the replica does
   * not answer).
   */
  async current(): Promise<ReadTarget> {
    if (!this.replica) return this.primary;
    try {
      const { rows } = await this.primary.pool.query<{ lsn: string }>(COMMITTED_WAL_POSITION_SQL);
      const deadline = Date.now() + this.catchUpMs;
      for (;;) {
        const replayed = await this.replica.pool.query<{ done: boolean | null }>(
          "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done",
          [rows[0]!.lsn],
        );
        const done = replayed.rows[0]?.done;
        if (done) return this.replica;
        // null: not a standby (it replays no WAL), so nothing says how current it is.
        if (done === null || done === undefined || Date.now() >= deadline) return this.primary;
        await new Promise((r) => setTimeout(r, CATCH_UP_POLL_MS));
      }
    } catch {
      return this.primary;
    }
  }

  /**
   * How far the replica is behind: `seconds` since the last transaction it replayed while WAL it
   * received waits to be replayed (0 when it has replayed all it received), and `bytes` of the
   * primary's WAL it has not replayed yet. Undefined without a replica.
   */
  async lag(): Promise<{ seconds: number; bytes: number } | undefined> {
    if (!this.replica) return undefined;
    const [primary, replica] = await Promise.all([
      this.primary.pool.query<{ lsn: string }>(COMMITTED_WAL_POSITION_SQL),
      this.replica.pool.query<{ seconds: number | null; lsn: string | null }>(
        `SELECT CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
                     ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS seconds,
                pg_last_wal_replay_lsn()::text AS lsn`,
      ),
    ]);
    const row = replica.rows[0]!;
    if (row.lsn === null) throw new Error("DATABASE_READ_URL is not a streaming replica (it replays no WAL)");
    const bytes = await this.primary.pool.query<{ bytes: string }>(
      "SELECT greatest(pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn), 0)::text AS bytes",
      [primary.rows[0]!.lsn, row.lsn],
    );
    return { seconds: Math.max(row.seconds ?? 0, 0), bytes: Number(bytes.rows[0]!.bytes) };
  }
}

/**
 * `stats_database_replica_lag_seconds` and `_bytes`, measured at each scrape (two small queries
 * on each server); none without a replica. When a server does not answer they are NaN (a lag that
 * is not known is not 0), and the error is logged.
 */
export function replicaLagMetrics(replica: ReadReplica, onError: (err: unknown) => void): Gauge[] {
  if (!replica.routed) return [];
  let pending: Promise<{ seconds: number; bytes: number } | undefined> | undefined;
  // One measurement serves both gauges of a scrape.
  const measure = () => {
    pending ??= replica.lag().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  const gauge = (
    name: string,
    help: string,
    pick: (lag: { seconds: number; bytes: number }) => number,
    report: (err: unknown) => void,
  ) =>
    new Gauge({
      name,
      help,
      registers: [],
      async collect() {
        try {
          const lag = await measure();
          this.set(lag ? pick(lag) : Number.NaN);
        } catch (err) {
          this.set(Number.NaN);
          report(err);
        }
      },
    });
  return [
    gauge(
      "stats_database_replica_lag_seconds",
      "Seconds the read replica (DATABASE_READ_URL) is behind: since the last transaction it replayed, while WAL waits to be replayed",
      (lag) => lag.seconds,
      onError,
    ),
    gauge(
      "stats_database_replica_lag_bytes",
      "Bytes of the primary's WAL the read replica has not replayed yet",
      (lag) => lag.bytes,
      // The same failure as the seconds' (one measurement): logged once.
      () => {},
    ),
  ];
}
