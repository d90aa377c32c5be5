import type { MatchStatus } from "@arena/contracts";
import { type Game, type MatchId, SqlStatement, type Tenant } from "../db.js";

/**
 * The match lifecycle's SQL (`MatchLifecycle`): every statement named, with its parameters and
 * rows typed. Tenant first in every statement: each table's key starts with it.
 */

export interface MatchRow {
  match_id: string;
  game_id: string;
  status: MatchStatus;
  server: string;
  match_score: number;
  result_answer: unknown;
  created_at: Date;
  updated_at: Date;
}

/** A queue row claimed for a stored suggestion, with what its roster entry copies. */
export interface ClaimedRow {
  player_id: string;
  match_id: string;
  reference: string | null;
  joined_at: Date;
  servers: string[] | null;
  party_name: string | null;
}

export interface RosterRow {
  match_id: string;
  player_id: string;
  team: number;
  reference: string | null;
}

/**
 * Claims the players still waiting, each for its match (`$4`: player id → match id, as JSON).
 * Written without joins on purpose: the queue table churns faster than its statistics, and a join
 * planned on stale ones (a nested loop over a sequential scan) took seconds per tick; `= ANY` is an
 * index scan or a hashed filter whatever the statistics say, and the match of each player is a
 * lookup in one JSON object. Rows lock in index (playerId) order; deadlock victims are retried.
 */
export const CLAIM_WAITING = new SqlStatement<[Tenant, Game, string[], string, Date], ClaimedRow>(
  "lifecycle_claim_waiting",
  `UPDATE queue_players SET state = 'matched', match_id = $4::jsonb ->> player_id, updated_at = $5
    WHERE tenant_id = $1 AND player_id = ANY($3::text[]) AND game_id = $2 AND state = 'waiting'
   RETURNING player_id, match_id, reference, joined_at, servers, party_name`,
);

/** Puts back the players claimed for suggestions that are dropped (one of theirs was gone). */
export const UNCLAIM = new SqlStatement<[Tenant, MatchId[]]>(
  "lifecycle_unclaim",
  `UPDATE queue_players SET state = 'waiting', match_id = NULL
    WHERE tenant_id = $1 AND match_id = ANY($2::text[]) AND state = 'matched'`,
);

/**
 * `$4`-`$6`: ids, servers and scores of the new matches; `$7`: seconds to confirm; `$8`: per match,
 * the connection its push goes to (`delivered`, recorded with the row), or null (`suggested`: for a
 * REST fetch or a later offer).
 */
export const INSERT_MATCHES = new SqlStatement<
  [Tenant, Game, Date, MatchId[], string[], number[], number, (string | null)[]]
>(
  "lifecycle_insert_matches",
  `INSERT INTO matches (tenant_id, match_id, game_id, status, server, match_score, created_at, updated_at, confirm_by, pushed_to)
   SELECT $1, m.id, $2, CASE WHEN m.pushed_to IS NULL THEN 'suggested' ELSE 'delivered' END::"MatchStatus",
          m.server, m.score, $3, $3, $3::timestamptz + make_interval(secs => $7), m.pushed_to
     FROM unnest($4::text[], $5::text[], $6::float8[], $8::text[]) AS m(id, server, score, pushed_to)`,
  { prepared: true },
);

/** `$2`: the roster rows as one JSON array (`ClaimedRow` and `team`). */
export const INSERT_ROSTER = new SqlStatement<[Tenant, string]>(
  "lifecycle_insert_roster",
  `INSERT INTO match_players (tenant_id, match_id, player_id, team, reference, joined_at, servers, party_name)
   SELECT $1, r.match_id, r.player_id, r.team, r.reference, r.joined_at, r.servers, r.party_name
     FROM jsonb_to_recordset($2::jsonb) AS r(match_id text, player_id text, team int, reference text,
                                            joined_at timestamptz, servers text[], party_name text)`,
);

/**
 * Takes up to `$4` of the game's undelivered suggestions, oldest first, and marks them delivered;
 * one that another transaction holds is skipped, not waited for. `$5`: the delivery counts as an
 * acknowledgement (a REST fetch), or not (set aside for a push).
 */
export const PICK_SUGGESTED = new SqlStatement<
  [Tenant, Game, Date, number, boolean],
  { match_id: string; created_at: Date }
>(
  "lifecycle_pick_suggested",
  `WITH picked AS (
     SELECT match_id, created_at FROM matches
      WHERE tenant_id = $1 AND game_id = $2 AND status = 'suggested'
      ORDER BY created_at, match_id LIMIT $4 FOR UPDATE SKIP LOCKED)
   UPDATE matches m SET status = 'delivered', updated_at = $3,
          acked_at = CASE WHEN $5::boolean THEN coalesce(m.acked_at, $3) ELSE m.acked_at END
     FROM picked WHERE m.tenant_id = $1 AND m.match_id = picked.match_id
   RETURNING m.match_id, picked.created_at`,
  { prepared: true },
);

/** Records the first acknowledgement of a match; idempotent. */
export const ACKNOWLEDGE = new SqlStatement<[Tenant, Game, MatchId, Date]>(
  "lifecycle_acknowledge",
  `UPDATE matches SET acked_at = coalesce(acked_at, $4)
    WHERE tenant_id = $1 AND game_id = $2 AND match_id = $3`,
);

/**
 * The common confirmation in one statement, for a batch of the tenant's matches at once (`$2`,
 * each of the game `$3` at the same index): each match in a status the state machine confirms from
 * (`$5`) is confirmed and its players leave the queue with it. Answers the matches confirmed; the
 * others (unknown, another game's, already confirmed, refused) are decided one by one on the locked
 * row. Prepared: game servers confirm every match they play.
 */
export const CONFIRM_OPEN = new SqlStatement<
  [Tenant, MatchId[], Game[], Date, readonly MatchStatus[]],
  { match_id: string }
>(
  "match_confirm_batch",
  `WITH confirmed AS (
     UPDATE matches m SET status = 'confirmed', confirm_by = NULL, acked_at = coalesce(m.acked_at, $4), updated_at = $4
       FROM unnest($2::text[], $3::text[]) AS w(match_id, game_id)
      WHERE m.tenant_id = $1 AND m.match_id = ANY($2::text[]) AND m.match_id = w.match_id
        AND m.game_id = w.game_id AND m.status = ANY($5::"MatchStatus"[])
     RETURNING m.match_id),
   left_queue AS (
     DELETE FROM queue_players q USING confirmed c WHERE q.tenant_id = $1 AND q.match_id = c.match_id)
   SELECT match_id FROM confirmed`,
  { prepared: true },
);

/** Confirms a match whose row the transaction holds. */
export const CONFIRM_LOCKED = new SqlStatement<[Tenant, MatchId, Date]>(
  "lifecycle_confirm_locked",
  `UPDATE matches SET status = 'confirmed', confirm_by = NULL, acked_at = coalesce(acked_at, $3), updated_at = $3
    WHERE tenant_id = $1 AND match_id = $2`,
);

/** The match's players leave the queue (they are playing). */
export const LEAVE_QUEUE = new SqlStatement<[Tenant, MatchId]>(
  "lifecycle_leave_queue",
  `DELETE FROM queue_players WHERE tenant_id = $1 AND match_id = $2`,
);

/** The whole roster, dropped players marked, in team order. */
export const ROSTER = new SqlStatement<
  [Tenant, MatchId],
  { player_id: string; reference: string | null; dropped: boolean }
>(
  "lifecycle_roster",
  `SELECT player_id, reference, dropped_at IS NOT NULL AS dropped FROM match_players
    WHERE tenant_id = $1 AND match_id = $2 ORDER BY team, joined_at, player_id`,
);

/** Players of an unconfirmed match who leave the queue for good. */
export const DELETE_FROM_QUEUE = new SqlStatement<[Tenant, MatchId, string[]]>(
  "lifecycle_delete_from_queue",
  `DELETE FROM queue_players WHERE tenant_id = $1 AND match_id = $2 AND player_id = ANY($3::text[])`,
);

/** The rest of an unconfirmed match's players wait again, with their original join time. */
export const REQUEUE_UNCONFIRMED = new SqlStatement<[Tenant, MatchId, Date]>(
  "lifecycle_requeue_unconfirmed",
  `UPDATE queue_players SET state = 'waiting', match_id = NULL, updated_at = $3
    WHERE tenant_id = $1 AND match_id = $2`,
);

/**
 * A confirmed match's players left the queue: they come back as they were queued. One who joined
 * a queue again meanwhile keeps that entry.
 */
export const REQUEUE_CONFIRMED = new SqlStatement<[Tenant, MatchId, string[], Date]>(
  "lifecycle_requeue_confirmed",
  `INSERT INTO queue_players (tenant_id, player_id, game_id, party_name, reference, servers, joined_at, state, updated_at)
   SELECT p.tenant_id, p.player_id, m.game_id, p.party_name, p.reference, p.servers, coalesce(p.joined_at, $4), 'waiting', $4
     FROM match_players p JOIN matches m ON m.tenant_id = p.tenant_id AND m.match_id = p.match_id
    WHERE p.tenant_id = $1 AND p.match_id = $2 AND p.player_id = ANY($3::text[])
   ON CONFLICT (tenant_id, player_id) DO NOTHING`,
);

/** `$3`: the failure's answer (JSON), answered again to a repeated failure. */
export const MARK_FAILED = new SqlStatement<[Tenant, MatchId, string, Date]>(
  "lifecycle_mark_failed",
  `UPDATE matches SET status = 'failed', confirm_by = NULL, result_answer = $3, acked_at = coalesce(acked_at, $4), updated_at = $4
    WHERE tenant_id = $1 AND match_id = $2`,
);

/** A match that ends cancels its open backfill requests. */
export const CANCEL_BACKFILLS = new SqlStatement<[Tenant, MatchId, Date]>(
  "lifecycle_cancel_backfills",
  `UPDATE backfill_requests SET state = 'cancelled', updated_at = $3
    WHERE tenant_id = $1 AND match_id = $2 AND state = 'searching'`,
);

/** Up to `$4` suggestions past their confirmation deadline, locked (others' skipped). */
export const DUE_FOR_TIME_OUT = new SqlStatement<
  [Tenant, Game, Date, number],
  Pick<MatchRow, "match_id" | "status" | "result_answer">
>(
  "lifecycle_due_for_time_out",
  `SELECT match_id, status::text AS status, result_answer FROM matches
    WHERE tenant_id = $1 AND game_id = $2 AND status IN ('suggested', 'delivered') AND confirm_by <= $3
    ORDER BY match_id LIMIT $4 FOR UPDATE SKIP LOCKED`,
);

/** What was pushed to a closed connection and never acknowledged: set aside again, for nobody. */
export const RELEASE_FROM_CONNECTION = new SqlStatement<
  [Tenant, string, Date],
  { match_id: string; game_id: string }
>(
  "lifecycle_release_from_connection",
  `UPDATE matches SET pushed_to = NULL, updated_at = $3
    WHERE tenant_id = $1 AND pushed_to = $2 AND status = 'delivered' AND acked_at IS NULL
   RETURNING match_id, game_id`,
);

/** The connections holding the game's pushed, unacknowledged suggestions. */
export const PUSH_HOLDERS = new SqlStatement<[Tenant, Game], { pushed_to: string }>(
  "lifecycle_push_holders",
  `SELECT DISTINCT pushed_to FROM matches
    WHERE tenant_id = $1 AND game_id = $2 AND status = 'delivered' AND acked_at IS NULL
      AND pushed_to IS NOT NULL`,
);

/** Back to `suggested`: what a process died setting aside for a push more than `$4` s ago. */
export const RETURN_ORPHANED_PUSHES = new SqlStatement<[Tenant, Game, Date, number]>(
  "lifecycle_return_orphaned_pushes",
  `UPDATE matches SET status = 'suggested', updated_at = $3
    WHERE tenant_id = $1 AND game_id = $2 AND status = 'delivered' AND pushed_to IS NULL
      AND acked_at IS NULL AND updated_at < $3::timestamptz - make_interval(secs => $4)`,
);

/** Back to `suggested`: what was set aside for a push that no connection took. */
export const RETURN_UNCLAIMED = new SqlStatement<[Tenant, MatchId[]]>(
  "lifecycle_return_unclaimed",
  `UPDATE matches SET status = 'suggested'
    WHERE tenant_id = $1 AND match_id = ANY($2::text[]) AND status = 'delivered'
      AND acked_at IS NULL AND pushed_to IS NULL`,
);

/** Records each match's push connection (`$3`: match id → connection id, as JSON; no join, as in CLAIM_WAITING). */
export const RECORD_PUSH_TARGETS = new SqlStatement<[Tenant, MatchId[], string]>(
  "lifecycle_record_push_targets",
  `UPDATE matches SET pushed_to = $3::jsonb ->> match_id
    WHERE tenant_id = $1 AND match_id = ANY($2::text[]) AND status = 'delivered' AND acked_at IS NULL`,
);

const MATCH_COLUMNS = `match_id, game_id, status::text AS status, server, match_score, result_answer, created_at, updated_at`;

export const MATCH_ROW = new SqlStatement<[Tenant, MatchId], MatchRow>(
  "lifecycle_match_row",
  `SELECT ${MATCH_COLUMNS} FROM matches WHERE tenant_id = $1 AND match_id = $2`,
);

/** The match row, locked for the rest of the transaction. */
export const MATCH_ROW_LOCKED = new SqlStatement<[Tenant, MatchId], MatchRow>(
  "lifecycle_match_row_locked",
  `SELECT ${MATCH_COLUMNS} FROM matches WHERE tenant_id = $1 AND match_id = $2 FOR UPDATE`,
);

export const DELIVERED_MATCHES = new SqlStatement<
  [Tenant, MatchId[]],
  Pick<MatchRow, "match_id" | "server" | "match_score">
>(
  "lifecycle_delivered_matches",
  `SELECT match_id, server, match_score FROM matches WHERE tenant_id = $1 AND match_id = ANY($2::text[])`,
);

/** The current roster (dropped players left out) of these matches, in team order. */
export const DELIVERED_ROSTER = new SqlStatement<[Tenant, MatchId[]], RosterRow>(
  "lifecycle_delivered_roster",
  `SELECT match_id, player_id, team, reference FROM match_players
    WHERE tenant_id = $1 AND match_id = ANY($2::text[]) AND dropped_at IS NULL
    ORDER BY match_id, team, joined_at, player_id`,
);
