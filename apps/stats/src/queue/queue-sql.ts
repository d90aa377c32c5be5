import type { MatchStatus } from "@arena/contracts";
import { type Game, type PlayerId, SqlStatement, type Tenant } from "../db.js";

/**
 * The hosted queue's SQL (`QueueStore`): every statement named, with its parameters and rows
 * typed. Tenant first in every statement: each table's key starts with it.
 */

/** A player's latest statistics row in the game, up to the current season (null: none yet). */
export interface RatedRow {
  player_id: string;
  season: number | null;
  mu: number | null;
  sigma: number | null;
}

export interface QueueEntryRow {
  state: string;
  match_id: string | null;
  reference: string | null;
}

/**
 * A player's latest statistics row in a game up to the current season ($3), as a lateral
 * subquery over `q.player_id`; tenant and game are SQL expressions of the calling query.
 */
const latestStat = (tenant: string, game: string) => `SELECT season, mu, sigma FROM player_stats ps
   WHERE ps.tenant_id = ${tenant} AND ps.player_id = q.player_id AND ps.game_id = ${game} AND ps.season <= $3
   ORDER BY season DESC LIMIT 1`;

/**
 * Queues a submission's players, all or none (`$4`, `$5`, `$7`: one element per player: ids,
 * references, and servers joined by the unit separator; `$3`: the party).
 */
export const INSERT_SUBMISSION = new SqlStatement<
  [Tenant, Game, string | null, PlayerId[], (string | null)[], Date, string[]]
>(
  "queue_insert_submission",
  `INSERT INTO queue_players (tenant_id, player_id, game_id, party_name, reference, servers, joined_at, updated_at)
   SELECT $1, e.id, $2, $3, e.ref, CASE WHEN e.servers = '' THEN '{}'::text[] ELSE string_to_array(e.servers, E'\\x1f') END, $6, $6
     FROM unnest($4::text[], $5::text[], $7::text[]) AS e(id, ref, servers)`,
  { prepared: true },
);

/** Which of these players hold a queue row (waiting, or in an unconfirmed match). */
export const QUEUED_AMONG = new SqlStatement<[Tenant, PlayerId[]], { player_id: string }>(
  "queue_queued_among",
  `SELECT player_id FROM queue_players WHERE tenant_id = $1 AND player_id = ANY($2::text[])`,
);

/** The game's waiting and matched players, the longest waiting first. */
export const LIST = new SqlStatement<
  [Tenant, Game],
  { player_id: string; state: "waiting" | "matched"; reference: string | null }
>(
  "queue_list",
  `SELECT player_id, state::text AS state, reference FROM queue_players
    WHERE tenant_id = $1 AND game_id = $2 ORDER BY joined_at, player_id`,
);

const ENTRY_TEXT = `SELECT state::text AS state, match_id, reference FROM queue_players
    WHERE tenant_id = $1 AND player_id = $2 AND game_id = $3`;

/** A player's queue row in the game. */
export const ENTRY = new SqlStatement<[Tenant, PlayerId, Game], QueueEntryRow>("queue_entry", ENTRY_TEXT);

/** A player's queue row in the game, locked for the rest of the transaction. */
export const ENTRY_LOCKED = new SqlStatement<[Tenant, PlayerId, Game], QueueEntryRow>(
  "queue_entry_locked",
  `${ENTRY_TEXT} FOR UPDATE`,
);

/** A player leaves the queue. */
export const DELETE_ENTRY = new SqlStatement<[Tenant, PlayerId]>(
  "queue_delete_entry",
  `DELETE FROM queue_players WHERE tenant_id = $1 AND player_id = $2`,
);

/** The game's matches in the given (unconfirmed) statuses, locked in match id order. */
export const UNCONFIRMED_MATCHES_LOCKED = new SqlStatement<
  [Tenant, Game, readonly MatchStatus[]],
  { match_id: string; status: "suggested" | "delivered"; result_answer: unknown }
>(
  "queue_unconfirmed_matches_locked",
  `SELECT match_id, status::text AS status, result_answer FROM matches
    WHERE tenant_id = $1 AND game_id = $2 AND status = ANY($3::"MatchStatus"[])
    ORDER BY match_id FOR UPDATE`,
);

/** Every waiting player of the game leaves the queue. */
export const DELETE_WAITING = new SqlStatement<[Tenant, Game]>(
  "queue_delete_waiting",
  `DELETE FROM queue_players WHERE tenant_id = $1 AND game_id = $2 AND state = 'waiting'`,
);

/** The game's players waiting since before `$3` leave the queue. */
export const EXPIRE = new SqlStatement<[Tenant, Game, Date], { player_id: string; reference: string | null }>(
  "queue_expire",
  `DELETE FROM queue_players WHERE tenant_id = $1 AND game_id = $2 AND state = 'waiting' AND joined_at < $3
   RETURNING player_id, reference`,
);

/**
 * Up to `$4` of the game's waiting players with their latest statistics up to season `$3`, the
 * longest waiting first. `$5`: only solo players who can play on that server (null: everyone).
 */
export const WAITING = new SqlStatement<
  [Tenant, Game, number, number, string | null],
  RatedRow & { party_name: string | null; servers: string[] | null; joined_at: Date }
>(
  "queue_waiting",
  `SELECT q.player_id, q.party_name, q.servers, q.joined_at, s.season, s.mu, s.sigma
     FROM queue_players q
     LEFT JOIN LATERAL (${latestStat("q.tenant_id", "q.game_id")}) s ON true
    WHERE q.tenant_id = $1 AND q.game_id = $2 AND q.state = 'waiting'
      AND ($5::text IS NULL OR (q.party_name IS NULL AND (q.servers = '{}' OR $5 = ANY(q.servers))))
    ORDER BY q.joined_at, q.player_id LIMIT $4`,
);

/** These players' latest statistics in the game up to season `$3`, in the order given. */
export const LATEST_STATS = new SqlStatement<[Tenant, Game, number, readonly PlayerId[]], RatedRow>(
  "queue_latest_stats",
  `SELECT q.player_id, s.season, s.mu, s.sigma
     FROM unnest($4::text[]) WITH ORDINALITY AS q(player_id, n)
     LEFT JOIN LATERAL (${latestStat("$1", "$2")}) s ON true
    ORDER BY q.n`,
);

/** Tenants and games with waiting players or open suggestions or backfill requests. */
export const ACTIVE_GAMES = new SqlStatement<[], { tenant_id: string; game_id: string }>(
  "queue_active_games",
  `SELECT DISTINCT tenant_id, game_id FROM queue_players
   UNION
   SELECT DISTINCT tenant_id, game_id FROM matches WHERE status IN ('suggested', 'delivered')
   UNION
   SELECT DISTINCT tenant_id, game_id FROM backfill_requests WHERE state = 'searching'`,
);

/**
 * Per tenant and game with waiting players: how many wait, and when the longest-waiting joined
 * (the queue gauges, read at each scrape). At most `$1` games, the longest waits first.
 */
export const WAITING_BY_GAME = new SqlStatement<
  [number],
  { tenant_id: string; game_id: string; waiting: number; oldest_joined_at: Date }
>(
  "queue_waiting_by_game",
  `SELECT tenant_id, game_id, count(*)::int AS waiting, min(joined_at) AS oldest_joined_at
     FROM queue_players WHERE state = 'waiting'
    GROUP BY tenant_id, game_id
    ORDER BY oldest_joined_at, tenant_id, game_id LIMIT $1`,
);
