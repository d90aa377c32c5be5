import type { Logger } from "@arena/service-kit";
import { type Database, inTransaction, type SqlPool } from "../db.js";
import type { LeaderboardStore } from "../leaderboards/leaderboard-store.js";
import type { PlayerStatsStore } from "../players/player-stats-store.js";
import { BUMP_ATTEMPTS, DELETE_ACKNOWLEDGED, DELETE_APPLIED, DUE_LOCKED } from "./outbox-sql.js";

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
      await DELETE_ACKNOWLEDGED.run(this.options.pool, ids);
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
    const { db, pool, stats, leaderboards } = this.options;
    const minAge = `${options.minAgeMs ?? this.options.minAgeMs ?? 2_000} milliseconds`;
    const limit = this.options.batchSize ?? 100;
    const applied = await inTransaction(pool, async (tx) => {
      const { rows } = await DUE_LOCKED.run(tx, minAge, limit);
      let done = 0;
      for (const row of rows) {
        const ref = { tenantId: row.tenant_id, gameId: row.game_id, season: row.season };
        try {
          await leaderboards.write(ref, await stats.entries(ref, row.player_ids));
        } catch (err) {
          this.options.logger.warn({ err, outboxId: row.id }, "leaderboard outbox: Redis still failing");
          await BUMP_ATTEMPTS.run(tx, row.id);
          break;
        }
        await DELETE_APPLIED.run(tx, row.id);
        done++;
      }
      return done;
    });
    const count = await db.leaderboardOutbox.count();
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
