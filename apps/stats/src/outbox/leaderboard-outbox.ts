import type { Logger } from "@arena/service-kit";
import type { Database, SqlPool } from "../db.js";
import type { LeaderboardStore } from "../leaderboards/leaderboard-store.js";
import type { PlayerStatsStore } from "../players/player-stats-store.js";

export interface OutboxOptions {
  db: Database;
  pool: SqlPool;
  stats: PlayerStatsStore;
  leaderboards: LeaderboardStore;
  logger: Logger;
  /** Rows younger than this are left to the completion that wrote them (it is still publishing). */
  minAgeMs?: number;
  batchSize?: number;
  depth?: { set(value: number): void };
}

interface OutboxRow {
  id: bigint;
  tenant_id: string;
  game_id: string;
  season: number;
  player_ids: string[];
}

/**
 * Repairs leaderboards after Redis failed a write: each completion records its board write in
 * `leaderboard_outbox` inside its transaction; the rows still there are applied again here, with
 * the values PostgreSQL holds now (the per-player sequence makes that safe however late it runs).
 */
export class LeaderboardOutbox {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  /** Outbox rows whose write Redis confirmed, deleted together (one statement per batch). */
  private acknowledged: string[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: OutboxOptions) {}

  /**
   * A completion's board write reached Redis: its outbox row can go. Rows are deleted in batches
   * (about one statement per event-loop turn, however many completions finished in it); a row
   * whose delete is lost with the process is just applied once more by the worker (a no-op).
   */
  acknowledge(id: string): void {
    this.acknowledged.push(id);
    if (this.flushing === undefined) {
      this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
        this.flushAcknowledged(),
      );
    }
  }

  private async flushAcknowledged(): Promise<void> {
    const ids = this.acknowledged;
    this.acknowledged = [];
    try {
      await this.options.pool.query("DELETE FROM leaderboard_outbox WHERE id = ANY($1::bigint[])", [ids]);
    } catch (err) {
      this.options.logger.warn(
        { err, rows: ids.length },
        "leaderboard outbox: acknowledged rows kept for the worker",
      );
    } finally {
      this.flushing = undefined;
      if (this.acknowledged.length > 0) this.acknowledge(this.acknowledged.pop()!);
    }
  }

  /** One pass: applies up to `batchSize` rows; answers how many were applied and how many remain. */
  async drainOnce(options: { minAgeMs?: number } = {}): Promise<{ applied: number; remaining: number }> {
    const { db, stats, leaderboards } = this.options;
    const minAge = `${options.minAgeMs ?? this.options.minAgeMs ?? 2_000} milliseconds`;
    const limit = this.options.batchSize ?? 100;
    const applied = await db.$transaction(
      async (tx) => {
        const rows = await tx.$queryRaw<OutboxRow[]>`
          SELECT id, tenant_id, game_id, season, player_ids FROM leaderboard_outbox
           WHERE created_at <= now() - ${minAge}::interval
           ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
        let done = 0;
        for (const row of rows) {
          const ref = { tenantId: row.tenant_id, gameId: row.game_id, season: row.season };
          try {
            await leaderboards.write(ref, await stats.entries(ref, row.player_ids));
          } catch (err) {
            this.options.logger.warn(
              { err, outboxId: row.id.toString() },
              "leaderboard outbox: Redis still failing",
            );
            await tx.$executeRaw`UPDATE leaderboard_outbox SET attempts = attempts + 1 WHERE id = ${row.id}`;
            break;
          }
          await tx.$executeRaw`DELETE FROM leaderboard_outbox WHERE id = ${row.id}`;
          done++;
        }
        return done;
      },
      { timeout: 60_000 },
    );
    const [{ count } = { count: 0 }] = await db.$queryRaw<Array<{ count: number }>>`
      SELECT count(*)::int AS count FROM leaderboard_outbox`;
    this.options.depth?.set(count);
    return { applied, remaining: count };
  }

  /** Drains every `intervalMs` until `stop`. */
  start(intervalMs: number): void {
    const schedule = () => {
      this.timer = setTimeout(tick, intervalMs);
      this.timer.unref();
    };
    const tick = () => {
      this.running = this.drainOnce()
        .catch((err: unknown) => this.options.logger.warn({ err }, "leaderboard outbox pass failed"))
        .finally(() => {
          if (this.timer !== undefined) schedule();
        });
    };
    schedule();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    while (this.flushing !== undefined) await this.flushing;
  }
}
