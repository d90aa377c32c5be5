import type { BackfillStatus } from "@arena/contracts";
import { type Game, type MatchId, type PlayerId, SqlStatement, type Tenant } from "../db.js";

/**
 * Backfill's SQL (`BackfillStore`): every statement named, with its parameters and rows typed.
 * Tenant first in every statement: each table's key starts with it.
 */

type RequestId = string;

export interface RequestRow {
  request_id: string;
  match_id: string;
  game_id: string;
  dropped_player_id: string;
  team: number;
  state: BackfillStatus["state"];
  replacement_id: string | null;
  replacement_reference: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A replacement as it left the queue. */
export interface TakenRow {
  reference: string | null;
  joined_at: Date;
  servers: string[];
}

const COLUMNS = `request_id, match_id, game_id, dropped_player_id, team, state::text AS state, replacement_id,
  replacement_reference, created_at, updated_at`;

const REQUEST_TEXT = `SELECT ${COLUMNS} FROM backfill_requests WHERE tenant_id = $1 AND request_id = $2`;

export const REQUEST = new SqlStatement<[Tenant, RequestId], RequestRow>("backfill_request", REQUEST_TEXT);

/** The request, locked for the rest of the transaction. */
export const REQUEST_LOCKED = new SqlStatement<[Tenant, RequestId], RequestRow>(
  "backfill_request_locked",
  `${REQUEST_TEXT} FOR UPDATE`,
);

/** The team of a player in the match's roster (no row: not a player of the match). */
export const SEAT = new SqlStatement<[Tenant, MatchId, PlayerId], { team: number }>(
  "backfill_seat",
  `SELECT team FROM match_players WHERE tenant_id = $1 AND match_id = $2 AND player_id = $3`,
);

/** The seat's open requests (at most one, by a partial unique index), locked. */
export const OPEN_FOR_SEAT_LOCKED = new SqlStatement<[Tenant, MatchId, PlayerId], RequestRow>(
  "backfill_open_for_seat_locked",
  `SELECT ${COLUMNS} FROM backfill_requests
    WHERE tenant_id = $1 AND match_id = $2 AND dropped_player_id = $3 AND state IN ('searching', 'delivered')
    FOR UPDATE`,
);

/** Marks a roster player dropped at `$4`, or keeps the time it was first marked. */
export const DROP_PLAYER = new SqlStatement<[Tenant, MatchId, PlayerId, Date]>(
  "backfill_drop_player",
  `UPDATE match_players SET dropped_at = coalesce(dropped_at, $4)
    WHERE tenant_id = $1 AND match_id = $2 AND player_id = $3`,
);

/** `$6`: the dropped player's team; `$7`: now; `$8`: seconds the request searches. */
export const INSERT_REQUEST = new SqlStatement<
  [Tenant, RequestId, MatchId, Game, PlayerId, number, Date, number]
>(
  "backfill_insert_request",
  `INSERT INTO backfill_requests (tenant_id, request_id, match_id, game_id, dropped_player_id, team, state,
                                  expires_at, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, 'searching', $7::timestamptz + make_interval(secs => $8), $7, $7)`,
);

/** The game's requests still searching at `$3` past their time limit time out. */
export const TIME_OUT = new SqlStatement<[Tenant, Game, Date]>(
  "backfill_time_out",
  `UPDATE backfill_requests SET state = 'timed-out', updated_at = $3
    WHERE tenant_id = $1 AND game_id = $2 AND state = 'searching' AND expires_at <= $3`,
);

/** Up to 100 of the game's requests searching at `$3`, oldest first, with their match's server. */
export const SEARCHING = new SqlStatement<[Tenant, Game, Date], RequestRow & { server: string }>(
  "backfill_searching",
  `SELECT b.request_id, b.match_id, b.game_id, b.dropped_player_id, b.team, b.state::text AS state,
          b.replacement_id, b.replacement_reference, b.created_at, b.updated_at, m.server
     FROM backfill_requests b JOIN matches m ON m.tenant_id = b.tenant_id AND m.match_id = b.match_id
    WHERE b.tenant_id = $1 AND b.game_id = $2 AND b.state = 'searching' AND b.expires_at > $3
    ORDER BY b.created_at, b.request_id LIMIT 100`,
);

/** The match's current roster (dropped players left out). */
export const CURRENT_ROSTER = new SqlStatement<[Tenant, MatchId], { player_id: string; team: number }>(
  "backfill_current_roster",
  `SELECT player_id, team FROM match_players WHERE tenant_id = $1 AND match_id = $2 AND dropped_at IS NULL`,
);

/** The chosen replacement leaves the queue, if it is still waiting. */
export const TAKE_FROM_QUEUE = new SqlStatement<[Tenant, PlayerId], TakenRow>(
  "backfill_take_from_queue",
  `DELETE FROM queue_players WHERE tenant_id = $1 AND player_id = $2 AND state = 'waiting'
   RETURNING reference, joined_at, servers`,
);

/**
 * The replacement joins the roster in the dropped player's team (`$4`); one who played in the
 * match before takes its seat again.
 */
export const SEAT_REPLACEMENT = new SqlStatement<
  [Tenant, MatchId, PlayerId, number, string | null, Date, string[]]
>(
  "backfill_seat_replacement",
  `INSERT INTO match_players (tenant_id, match_id, player_id, team, reference, role, joined_at, servers)
   VALUES ($1, $2, $3, $4, $5, 'backfill', $6, $7)
   ON CONFLICT (tenant_id, match_id, player_id) DO UPDATE
     SET team = EXCLUDED.team, role = 'backfill', dropped_at = NULL, joined_at = EXCLUDED.joined_at`,
);

/** `$3`, `$4`: the replacement's id and reference. */
export const MARK_DELIVERED = new SqlStatement<[Tenant, RequestId, PlayerId, string | null, Date]>(
  "backfill_mark_delivered",
  `UPDATE backfill_requests SET state = 'delivered', replacement_id = $3, replacement_reference = $4, updated_at = $5
    WHERE tenant_id = $1 AND request_id = $2`,
);

/**
 * A delivered replacement (`$5`) goes back to the game's (`$3`) queue with its own join time;
 * one that joined a queue again meanwhile keeps that entry.
 */
export const REQUEUE_REPLACEMENT = new SqlStatement<[Tenant, MatchId, Game, Date, PlayerId]>(
  "backfill_requeue_replacement",
  `INSERT INTO queue_players (tenant_id, player_id, game_id, reference, servers, joined_at, state, updated_at)
   SELECT tenant_id, player_id, $3, reference, servers, coalesce(joined_at, $4), 'waiting', $4
     FROM match_players WHERE tenant_id = $1 AND match_id = $2 AND player_id = $5
   ON CONFLICT (tenant_id, player_id) DO NOTHING`,
);

/** The replacement leaves the roster. */
export const UNSEAT_REPLACEMENT = new SqlStatement<[Tenant, MatchId, PlayerId]>(
  "backfill_unseat_replacement",
  `DELETE FROM match_players WHERE tenant_id = $1 AND match_id = $2 AND player_id = $3 AND role = 'backfill'`,
);

export const MARK_CANCELLED = new SqlStatement<[Tenant, RequestId, Date], RequestRow>(
  "backfill_mark_cancelled",
  `UPDATE backfill_requests SET state = 'cancelled', updated_at = $3 WHERE tenant_id = $1 AND request_id = $2
   RETURNING ${COLUMNS}`,
);
