import { PreparedStatement, sqlInteger, sqlLiteral } from "../db.js";

/**
 * A match completion's SQL: four statements, prepared once per connection (see
 * `PreparedStatement`) and run in two simple-query round trips by `MatchCompletion`.
 */

/** The match row, locked, with its roster as `[playerId, dropped, team]` triples. */
export const OPEN_MATCH = new PreparedStatement(
  "completion_open_match",
  ["text", "text"],
  `SELECT m.game_id, m.status::text AS status, m.result_request, m.result_answer,
          (SELECT coalesce(json_agg(json_build_array(p.player_id, p.dropped_at IS NOT NULL, p.team)), '[]'::json)
             FROM match_players p WHERE p.tenant_id = m.tenant_id AND p.match_id = m.match_id) AS roster
     FROM matches m WHERE m.tenant_id = $1 AND m.match_id = $2
      FOR UPDATE OF m`,
);

/**
 * Creates the players that are new and locks every one (sorted by id: no deadlock between
 * completions), of the completions (`$3`, JSON: `LockJob[]`) whose match is confirmed, of their
 * game, and reported as its roster, team by team: the rule of `rosterErrors` (completion-rules.ts),
 * which the matches locked before make stable. A completion of an unknown match, or one refused
 * by the roster check, creates and locks nobody: 400 completions of unknown matches naming 1,800
 * players each once left 734,590 dead rows in `players` and slowed every tenant's completions.
 *
 * Per completion, with its listed players looked up in the roster: all of them found; the reported
 * teams map one to one onto the match teams (as many distinct match teams as reported teams, and
 * as many distinct (reported, match) team pairs); every match team reported; as many listed
 * players still playing as the match has. The match and its roster are read by the primary key
 * (LATERAL subqueries with LIMIT or an aggregate stay lookups: joined, PostgreSQL chose an index
 * that reads every match of the game, or every match of the player).
 */
export const LOCK_PLAYERS = new PreparedStatement(
  "completion_lock_players",
  ["text", "timestamptz", "jsonb"],
  `WITH job AS (
     SELECT j.match_id, j.teams, j.players, r.roster, r.playing, r.match_teams
       FROM jsonb_to_recordset($3) AS j(match_id text, game_id text, teams int, players jsonb)
      CROSS JOIN LATERAL (
            SELECT m.game_id, m.status FROM matches m
             WHERE m.tenant_id = $1 AND m.match_id = j.match_id LIMIT 1) m
      CROSS JOIN LATERAL (
            SELECT jsonb_object_agg(r.player_id, jsonb_build_array(r.team, r.dropped_at IS NULL)) AS roster,
                   count(*) FILTER (WHERE r.dropped_at IS NULL) AS playing,
                   count(DISTINCT r.team) AS match_teams
              FROM match_players r WHERE r.tenant_id = $1 AND r.match_id = j.match_id) r
      WHERE m.game_id = j.game_id AND m.status = 'confirmed'),
   listed AS (
     SELECT job.match_id, job.teams, job.playing, job.match_teams, p.id, p.team,
            (job.roster -> p.id -> 0)::int AS match_team, (job.roster -> p.id -> 1)::boolean AS playing_now
       FROM job CROSS JOIN LATERAL jsonb_to_recordset(job.players) AS p(id text, team int)),
   as_played AS (
     SELECT match_id FROM listed GROUP BY match_id, teams, playing, match_teams
     HAVING count(match_team) = count(*)
        AND count(DISTINCT match_team) = teams
        AND count(DISTINCT (team, match_team)) = teams
        AND match_teams = teams
        AND count(*) FILTER (WHERE playing_now) = playing)
   INSERT INTO players (tenant_id, player_id, updated_at)
   SELECT $1, l.id, $2 FROM listed l WHERE l.match_id IN (SELECT match_id FROM as_played)
    ORDER BY l.id
   ON CONFLICT (tenant_id, player_id) DO UPDATE SET updated_at = EXCLUDED.updated_at
   RETURNING player_id, seq, total_matches, total_wins, total_losses, total_draws`,
);

/** One completion as `LOCK_PLAYERS` reads it: its match and game, and who it reports in which team. */
export interface LockJob {
  match_id: string;
  game_id: string;
  /** How many teams the body reports. */
  teams: number;
  players: Array<{ id: string; team: number }>;
}

/**
 * Per player: its latest row of this game up to this season, and its other games this season.
 * Only for the players of the roster of `$5` while it is a confirmed match of the game (both read
 * once, by the primary keys): nothing is read for an unknown match.
 */
export const STARTING_POINTS = new PreparedStatement(
  "completion_starting_points",
  ["text", "text", "int", "text[]", "text"],
  `SELECT ids.id AS player_id, s.season, s.mu, s.sigma, s.ranking_points, s.points_changed_at,
          s.wins, s.losses, s.draws, s.matches, o.wins AS other_wins, o.losses AS other_losses,
          o.matches AS other_matches
     FROM unnest($4) AS ids(id)
     LEFT JOIN LATERAL (
          SELECT season, mu, sigma, ranking_points, points_changed_at, wins, losses, draws, matches
            FROM player_stats ps
           WHERE ps.tenant_id = $1 AND ps.player_id = ids.id AND ps.game_id = $2 AND ps.season <= $3
           ORDER BY season DESC LIMIT 1) s ON true
     LEFT JOIN LATERAL (
          SELECT coalesce(sum(wins), 0)::int AS wins, coalesce(sum(losses), 0)::int AS losses,
                 coalesce(sum(matches), 0)::int AS matches
            FROM player_stats ps
           WHERE ps.tenant_id = $1 AND ps.player_id = ids.id AND ps.season = $3
             AND ps.game_id <> $2) o ON true
    WHERE ids.id = ANY (ARRAY(SELECT r.player_id FROM match_players r WHERE r.tenant_id = $1 AND r.match_id = $5))
      AND (SELECT m.game_id = $2 AND m.status = 'confirmed' FROM matches m
            WHERE m.tenant_id = $1 AND m.match_id = $5)`,
);

/**
 * The write (data-modifying CTEs all run): statistics rows, player totals and sequences,
 * history, the match's result and the outbox row, whose id it answers. `$1` is the rows as one
 * JSON array (numbers in full precision). `players.player_id = ANY($9)` keeps the totals update
 * on the primary key: joined only to the JSON rows (estimated at 100 rows), PostgreSQL scanned
 * every player of the tenant up to some 25,000 of them (13 ms per completion at 5,000).
 */
export const WRITE_RESULT = new PreparedStatement(
  "completion_write_result",
  ["jsonb", "text", "text", "int", "text", "timestamptz", "text", "jsonb", "text[]"],
  `WITH v AS (
     SELECT * FROM jsonb_to_recordset($1) AS v(
            player_id text, mu float8, sigma float8, ranking_points int, points_changed_at timestamptz,
            wins int, losses int, draws int, matches int, rating_delta float8, ranking_delta int,
            seq bigint, total_matches int, total_wins int, total_losses int, total_draws int,
            team_index int, team_rank int, outcome "Outcome", score float8, predicted_win float8,
            mu_before float8, sigma_before float8, points_before int)),
   stats AS (
     INSERT INTO player_stats (tenant_id, game_id, season, player_id, mu, sigma, ranking_points,
            points_changed_at, wins, losses, draws, matches, rating_delta_last_game,
            ranking_delta_last_game, board_seq, updated_at)
     SELECT $2, $3, $4, v.player_id, v.mu, v.sigma, v.ranking_points,
            v.points_changed_at, v.wins, v.losses, v.draws, v.matches, v.rating_delta,
            v.ranking_delta, v.seq, $6 FROM v
     ON CONFLICT (tenant_id, game_id, season, player_id) DO UPDATE SET
            mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, ranking_points = EXCLUDED.ranking_points,
            points_changed_at = EXCLUDED.points_changed_at, wins = EXCLUDED.wins,
            losses = EXCLUDED.losses, draws = EXCLUDED.draws, matches = EXCLUDED.matches,
            rating_delta_last_game = EXCLUDED.rating_delta_last_game,
            ranking_delta_last_game = EXCLUDED.ranking_delta_last_game,
            board_seq = EXCLUDED.board_seq, updated_at = EXCLUDED.updated_at),
   totals AS (
     UPDATE players AS p SET seq = v.seq, total_matches = v.total_matches, total_wins = v.total_wins,
            total_losses = v.total_losses, total_draws = v.total_draws, updated_at = $6
       FROM v WHERE p.tenant_id = $2 AND p.player_id = ANY($9) AND p.player_id = v.player_id),
   history AS (
     INSERT INTO match_results (tenant_id, match_id, game_id, season, completed_at, player_id,
            team_index, team_rank, outcome, score, predicted_win, mu_before, sigma_before, mu_after,
            sigma_after, points_before, points_after)
     SELECT $2, $5, $3, $4, $6, v.player_id, v.team_index, v.team_rank,
            v.outcome, v.score, v.predicted_win, v.mu_before, v.sigma_before, v.mu, v.sigma,
            v.points_before, v.ranking_points FROM v),
   result AS (
     UPDATE matches SET status = 'completed', completed_at = $6, updated_at = $6,
            result_request = $7, result_answer = $8
      WHERE tenant_id = $2 AND match_id = $5),
   backfills AS (
     UPDATE backfill_requests SET state = 'cancelled', updated_at = $6
      WHERE tenant_id = $2 AND match_id = $5 AND state = 'searching')
   INSERT INTO leaderboard_outbox (tenant_id, game_id, season, player_ids)
   VALUES ($2, $3, $4, $9) RETURNING id`,
);

export const COMPLETION_STATEMENTS = [OPEN_MATCH, LOCK_PLAYERS, STARTING_POINTS, WRITE_RESULT];

/**
 * A completion's values as SQL literals, escaped once for every statement that takes them (the
 * simple-query protocol takes no parameters).
 */
export interface CompletionLiterals {
  tenant: string;
  game: string;
  match: string;
  season: string;
  now: string;
  /** The players' ids as a text[] literal. */
  ids: string;
}

export function completionLiterals(
  c: { tenantId: string; gameId: string; matchId: string; season: number; now: Date },
  playerIds: readonly string[],
): CompletionLiterals {
  const lit = sqlLiteral;
  return {
    tenant: lit(c.tenantId),
    game: lit(c.gameId),
    match: lit(c.matchId),
    season: sqlInteger(c.season),
    now: lit(c.now.toISOString()),
    ids: textArrayLiteral(playerIds),
  };
}

/** Strings as one SQL text[] literal, each escaped. */
export function textArrayLiteral(values: readonly string[]): string {
  return `ARRAY[${values.map((v) => sqlLiteral(v)).join(",")}]::text[]`;
}
