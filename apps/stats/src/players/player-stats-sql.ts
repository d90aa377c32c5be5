import { type Game, type Season, SqlStatement, type Tenant } from "../db.js";

/**
 * The board reads of players' statistics (`PlayerStatsStore`): a leaderboard rebuild's pages and
 * the outbox's re-reads, straight on pg (a million rows through Prisma cost seconds of CPU).
 */

/** A player's board entry as PostgreSQL holds it. */
export interface BoardRow {
  player_id: string;
  ranking_points: number;
  points_changed_at: Date;
  /** int8 arrives as text from pg. */
  board_seq: string;
}

/** Up to `$5` board entries after player `$4`, by playerId (the primary key's order). */
export const BOARD_PAGE = new SqlStatement<[Tenant, Game, Season, string, number], BoardRow>(
  "player_stats_board_page",
  `SELECT player_id, ranking_points, points_changed_at, board_seq FROM player_stats
    WHERE tenant_id = $1 AND game_id = $2 AND season = $3 AND player_id > $4
    ORDER BY player_id LIMIT $5`,
);

/** The board entries of these players. */
export const BOARD_ENTRIES = new SqlStatement<[Tenant, Game, Season, readonly string[]], BoardRow>(
  "player_stats_board_entries",
  `SELECT player_id, ranking_points, points_changed_at, board_seq FROM player_stats
    WHERE tenant_id = $1 AND game_id = $2 AND season = $3 AND player_id = ANY($4::text[])`,
);
