import { SqlStatement } from "../db.js";

/**
 * The leaderboard outbox's SQL (`LeaderboardOutbox`): every statement named, with its parameters
 * and rows typed.
 */

/** An outbox row's id: int8, which arrives as text from pg. */
type OutboxId = string;

export interface OutboxRow {
  id: OutboxId;
  tenant_id: string;
  game_id: string;
  season: number;
  player_ids: string[];
}

/** Rows whose board write Redis confirmed. */
export const DELETE_ACKNOWLEDGED = new SqlStatement<[OutboxId[]]>(
  "outbox_delete_acknowledged",
  "DELETE FROM leaderboard_outbox WHERE id = ANY($1::bigint[])",
);

/**
 * Up to `$2` rows at least `$1` old (an interval, e.g. '2000 milliseconds'), oldest first,
 * locked; rows another pass holds are skipped, not waited for.
 */
export const DUE_LOCKED = new SqlStatement<[string, number], OutboxRow>(
  "outbox_due_locked",
  `SELECT id, tenant_id, game_id, season, player_ids FROM leaderboard_outbox
    WHERE created_at <= now() - $1::interval
    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
);

/** A row whose write Redis failed again. */
export const BUMP_ATTEMPTS = new SqlStatement<[OutboxId]>(
  "outbox_bump_attempts",
  `UPDATE leaderboard_outbox SET attempts = attempts + 1 WHERE id = $1`,
);

/** A row whose write was applied. */
export const DELETE_APPLIED = new SqlStatement<[OutboxId]>(
  "outbox_delete_applied",
  `DELETE FROM leaderboard_outbox WHERE id = $1`,
);
