import type { CompleteMatchRequest, CompleteMatchResponse, PlayerResult } from "@arena/contracts";
import { AppError, type Logger } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import { prepare, type SqlClient, type SqlPool } from "../db.js";
import type { BoardEntry, BoardRef, LeaderboardStore } from "../leaderboards/leaderboard-store.js";
import { displayRating, displayUncertainty } from "../ratings/display-scale.js";
import { nextRankingPoints } from "../ratings/ranking-points.js";
import { DEFAULT_RATING, type Rating, rateMatch } from "../ratings/rating-model.js";
import { carryOver, seasonName } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import { canonicalCompletion, duplicatePlayers, rosterErrors } from "./completion-rules.js";
import {
  COMPLETION_STATEMENTS,
  type CompletionLiterals,
  completionLiterals,
  LOCK_PLAYERS,
  OPEN_MATCH,
  STARTING_POINTS,
  WRITE_RESULT,
} from "./completion-sql.js";

export interface CompletionMetrics {
  completed(result: "completed" | "replayed", seconds: number): void;
}

export interface MatchCompletionDeps {
  pool: SqlPool;
  /** Deletes the outbox rows of writes Redis confirmed (in batches). */
  outbox: { acknowledge(id: string): void };
  clock: Clock;
  seasons: SeasonStore;
  leaderboards: LeaderboardStore;
  logger: Logger;
  metrics?: CompletionMetrics;
}

export interface CompletionOutcome {
  answer: CompleteMatchResponse;
  replayed: boolean;
}

interface MatchRow {
  game_id: string;
  status: string;
  result_request: string | null;
  result_answer: unknown;
  roster: Array<[string, boolean]>;
}

interface LockedPlayer {
  player_id: string;
  /** int8 arrives as text from pg. */
  seq: string;
  total_matches: number;
  total_wins: number;
  total_losses: number;
  total_draws: number;
}

/** Per player: its latest row of this game up to this season, and its other games this season. */
interface StartingPoint {
  player_id: string;
  season: number | null;
  mu: number | null;
  sigma: number | null;
  ranking_points: number | null;
  points_changed_at: Date | null;
  wins: number | null;
  losses: number | null;
  draws: number | null;
  matches: number | null;
  other_wins: number;
  other_losses: number;
  other_matches: number;
}

interface PlayerUpdate {
  playerId: string;
  teamIndex: number;
  teamRank: number;
  score: number;
  outcome: "win" | "loss" | "draw";
  predictedWin: number;
  before: Rating;
  after: Rating;
  pointsBefore: number;
  pointsAfter: number;
  pointsChangedAt: Date;
  wins: number;
  losses: number;
  draws: number;
  matches: number;
  seq: bigint;
  totals: { matches: number; wins: number; losses: number; draws: number };
}

/**
 * Completing a match: ratings, counts, ranking points, history and the stored answer in one
 * PostgreSQL transaction keyed by the match, then the leaderboard write in Redis.
 *
 * The transaction runs on a pooled `pg` connection in two round trips, since it is the service's
 * hot write and each round trip is two system calls on both sides: BEGIN with the match lock and
 * its roster, the players' creation and locks and their starting points; then one statement
 * writing statistics, totals, history, the match and the outbox, with the COMMIT. The statements
 * (`completion-sql.ts`) are prepared once per connection, so PostgreSQL does not parse and plan
 * them for every match.
 *
 * - The match row is locked first: a replay waits for the first completion and then gets its
 *   stored answer (same body) or a 409 (a different one).
 * - Players are locked (created if new) in playerId order, so completions sharing a player
 *   serialise on that player's row and never deadlock; statistics are read after the lock, so no
 *   update is lost.
 * - The leaderboard write is recorded in the outbox inside the transaction and removed once Redis
 *   has it; if Redis fails, the outbox worker applies it later, so the board converges.
 */
export class MatchCompletion {
  constructor(private readonly deps: MatchCompletionDeps) {}

  async complete(
    tenantId: string,
    gameId: string,
    matchId: string,
    body: CompleteMatchRequest,
  ): Promise<CompletionOutcome> {
    const started = process.hrtime.bigint();
    const duplicates = duplicatePlayers(body);
    if (duplicates.length > 0) throw AppError.validation(duplicates);
    const canonical = canonicalCompletion(body);
    const season = await this.deps.seasons.current(tenantId);
    const now = this.deps.clock.now();

    const client = await this.deps.pool.connect();
    let result: Awaited<ReturnType<MatchCompletion["inTransaction"]>>;
    try {
      // BEGIN travels with the first query and COMMIT with the last (inTransaction): two round
      // trips in all. A replay changed nothing and ends its transaction here.
      result = await this.inTransaction(client, {
        tenantId,
        gameId,
        matchId,
        body,
        canonical,
        season: season.number,
        now,
      });
      if (result.kind === "replayed") await client.query("ROLLBACK");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    if (result.kind === "committed") {
      await this.publish({ tenantId, gameId, season: season.number }, result.entries, result.outboxId);
    }
    this.deps.metrics?.completed(
      result.kind === "replayed" ? "replayed" : "completed",
      Number(process.hrtime.bigint() - started) / 1e9,
    );
    return { answer: result.answer, replayed: result.kind === "replayed" };
  }

  /** Sends committed entries to the leaderboard; the outbox row goes once Redis has them. */
  private async publish(ref: BoardRef, entries: BoardEntry[], outboxId: string): Promise<void> {
    try {
      await this.deps.leaderboards.write(ref, entries);
      this.deps.outbox.acknowledge(outboxId);
    } catch (err) {
      this.deps.logger.warn({ err, outboxId }, "leaderboard write deferred to the outbox");
    }
  }

  private async inTransaction(
    tx: SqlClient,
    c: {
      tenantId: string;
      gameId: string;
      matchId: string;
      body: CompleteMatchRequest;
      canonical: string;
      season: number;
      now: Date;
    },
  ): Promise<
    | { kind: "replayed"; answer: CompleteMatchResponse }
    | { kind: "committed"; answer: CompleteMatchResponse; entries: BoardEntry[]; outboxId: string }
  > {
    const { gameId, matchId, body, season, now } = c;
    // One round trip: BEGIN, the match lock with its roster, then the players' creation and locks
    // in a fixed order (no deadlock between completions) and their starting points, read with a
    // snapshot of its own taken after those locks (a completion that shared a player has committed
    // by then: no update is lost). The players are the body's, taken before the roster check
    // below; a body that fails it rolls back, so nothing it named is kept. The simple-query
    // protocol takes no parameters: the values are escaped literals. The statements keep one
    // generic plan each (checked on large tables by completion-plans.test): left to choose,
    // PostgreSQL planned the starting points' read again for every match.
    await prepare(tx, COMPLETION_STATEMENTS);
    const sorted = body.teams.flatMap((t) => t.players.map((p) => p.playerId)).sort();
    const sql = completionLiterals(tx, c, sorted);
    const opened = (await tx.query(
      `BEGIN; SET LOCAL plan_cache_mode = force_generic_plan;
       ${OPEN_MATCH.execute(sql.tenant, sql.match)};
       ${LOCK_PLAYERS.execute(sql.tenant, sql.now, sql.ids)};
       ${STARTING_POINTS.execute(sql.tenant, sql.game, sql.season, sql.ids)}`,
    )) as unknown as [
      unknown,
      unknown,
      { rows: MatchRow[] },
      { rows: LockedPlayer[] },
      { rows: StartingPoint[] },
    ];
    const match = opened[2].rows[0];
    if (!match || match.game_id !== gameId) {
      throw new AppError("NOT_FOUND", `Match ${matchId} of game ${gameId} does not exist`);
    }
    if (match.status === "completed") {
      if (match.result_request === c.canonical) {
        return { kind: "replayed", answer: match.result_answer as CompleteMatchResponse };
      }
      throw new AppError("CONFLICT", `Match ${matchId} was already completed with a different result`);
    }
    if (match.status !== "confirmed") {
      throw new AppError(
        "CONFLICT",
        `Match ${matchId} is ${match.status}; only a confirmed match can be completed`,
      );
    }
    const errors = rosterErrors(
      body,
      match.roster.map(([playerId, dropped]) => ({ playerId, dropped })),
    );
    if (errors.length > 0) throw AppError.validation(errors);

    const locked = opened[3];
    const starts = opened[4];
    const playerRows = new Map(locked.rows.map((p) => [p.player_id, p]));
    const start = new Map(starts.rows.map((r) => [r.player_id, r]));
    const ratings = await this.startingRatings(c, starts.rows);

    const rated = rateMatch(
      body.teams.map((t) => ({ rank: t.rank, players: t.players.map((p) => ratings.get(p.playerId)!) })),
    );
    const updates: PlayerUpdate[] = [];
    for (const [t, team] of body.teams.entries()) {
      const teamResult = rated[t]!;
      for (const [i, p] of team.players.entries()) {
        const row = start.get(p.playerId)!;
        // This season's row of this game, if the player has one (else it starts from zero).
        const before = row.season === season ? row : undefined;
        const pointsBefore = before?.ranking_points ?? 0;
        const pointsAfter = nextRankingPoints({
          current: pointsBefore,
          outcome: teamResult.outcome,
          predictedWin: teamResult.predictedWin,
          numTeams: body.teams.length,
          placeBehind: teamResult.placeBehind,
        });
        const player = playerRows.get(p.playerId)!;
        const won = teamResult.outcome === "win" ? 1 : 0;
        const lost = teamResult.outcome === "loss" ? 1 : 0;
        const drew = teamResult.outcome === "draw" ? 1 : 0;
        updates.push({
          playerId: p.playerId,
          teamIndex: t,
          teamRank: team.rank,
          score: p.score,
          outcome: teamResult.outcome,
          predictedWin: teamResult.predictedWin,
          before: ratings.get(p.playerId)!,
          after: teamResult.players[i]!,
          pointsBefore,
          pointsAfter,
          // A result that leaves the points unchanged keeps the time they were reached.
          pointsChangedAt:
            before?.points_changed_at && pointsAfter === pointsBefore ? before.points_changed_at : now,
          wins: (before?.wins ?? 0) + won,
          losses: (before?.losses ?? 0) + lost,
          draws: (before?.draws ?? 0) + drew,
          matches: (before?.matches ?? 0) + 1,
          seq: BigInt(player.seq) + 1n,
          totals: {
            matches: player.total_matches + 1,
            wins: player.total_wins + won,
            losses: player.total_losses + lost,
            draws: player.total_draws + drew,
          },
        });
      }
    }
    const answer: CompleteMatchResponse = {
      players: updates.map((u) => {
        const other = start.get(u.playerId)!;
        return playerResult(
          u,
          {
            wins: other.other_wins + u.wins,
            losses: other.other_losses + u.losses,
            matches: other.other_matches + u.matches,
          },
          season,
        );
      }),
    };
    const outboxId = await this.write(tx, sql, c.canonical, updates, answer);
    const entries = updates.map((u) => ({
      playerId: u.playerId,
      points: u.pointsAfter,
      reachedAt: u.pointsChangedAt,
      seq: u.seq,
    }));
    return { kind: "committed", answer, entries, outboxId };
  }

  /**
   * Ratings before the match. A player new to this game's season starts from its latest earlier
   * season's rating moved toward the default by each season start since (carry-over), or from
   * the default if it never played the game.
   */
  private async startingRatings(
    c: { tenantId: string; gameId: string; season: number },
    rows: readonly StartingPoint[],
  ): Promise<Map<string, Rating>> {
    const ratings = new Map<string, Rating>();
    const factorsFrom = new Map<number, number[]>();
    for (const row of rows) {
      if (row.season === null || row.mu === null || row.sigma === null) {
        ratings.set(row.player_id, { ...DEFAULT_RATING });
        continue;
      }
      if (row.season === c.season) {
        ratings.set(row.player_id, { mu: row.mu, sigma: row.sigma });
        continue;
      }
      let factors = factorsFrom.get(row.season);
      if (!factors) {
        factors = await this.deps.seasons.carryOverFactors(c.tenantId, c.gameId, row.season, c.season);
        factorsFrom.set(row.season, factors);
      }
      ratings.set(row.player_id, carryOver({ mu: row.mu, sigma: row.sigma }, factors));
    }
    return ratings;
  }

  /**
   * `WRITE_RESULT` and the COMMIT in one round trip. The rows travel as one JSON literal (the
   * simple-query protocol takes no parameters, and COMMIT can only share a round trip there).
   * If the statement fails, PostgreSQL skips the COMMIT and the caller rolls back.
   */
  private async write(
    tx: SqlClient,
    sql: CompletionLiterals,
    canonical: string,
    u: PlayerUpdate[],
    answer: CompleteMatchResponse,
  ): Promise<string> {
    const rows = u.map((x) => ({
      player_id: x.playerId,
      mu: x.after.mu,
      sigma: x.after.sigma,
      ranking_points: x.pointsAfter,
      points_changed_at: x.pointsChangedAt.toISOString(),
      wins: x.wins,
      losses: x.losses,
      draws: x.draws,
      matches: x.matches,
      rating_delta: Math.round((displayRating(x.after) - displayRating(x.before)) * 100) / 100,
      ranking_delta: x.pointsAfter - x.pointsBefore,
      seq: x.seq.toString(),
      total_matches: x.totals.matches,
      total_wins: x.totals.wins,
      total_losses: x.totals.losses,
      total_draws: x.totals.draws,
      team_index: x.teamIndex,
      team_rank: x.teamRank,
      outcome: x.outcome,
      score: x.score,
      predicted_win: x.predictedWin,
      mu_before: x.before.mu,
      sigma_before: x.before.sigma,
      points_before: x.pointsBefore,
    }));
    const lit = (value: string) => tx.escapeLiteral(value);
    const results = (await tx.query(
      `${WRITE_RESULT.execute(
        lit(JSON.stringify(rows)),
        sql.tenant,
        sql.game,
        sql.season,
        sql.match,
        sql.now,
        lit(canonical),
        lit(JSON.stringify(answer)),
        sql.ids,
      )}; COMMIT`,
    )) as unknown as [{ rows: Array<{ id: string }> }, unknown];
    return results[0].rows[0]!.id;
  }
}

function playerResult(
  u: PlayerUpdate,
  sums: { wins: number; losses: number; matches: number },
  season: number,
): PlayerResult {
  const ratingAfter = displayRating(u.after);
  return {
    playerId: u.playerId,
    rating: ratingAfter,
    ratingUncertainty: displayUncertainty(u.after),
    rankingPoints: u.pointsAfter,
    ratingDeltaLastGame: Math.round((ratingAfter - displayRating(u.before)) * 100) / 100,
    rankingDeltaLastGame: u.pointsAfter - u.pointsBefore,
    wins: u.wins,
    losses: u.losses,
    matchesPlayed: u.matches,
    winRatio: u.matches === 0 ? 0 : u.wins / u.matches,
    seasonWins: sums.wins,
    seasonLosses: sums.losses,
    seasonMatchesPlayed: sums.matches,
    totalWins: u.totals.wins,
    totalLosses: u.totals.losses,
    totalMatchesPlayed: u.totals.matches,
    season: seasonName(season),
  };
}
