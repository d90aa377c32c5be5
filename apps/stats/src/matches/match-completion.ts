import type { CompleteMatchRequest, CompleteMatchResponse, PlayerResult } from "@arena/contracts";
import { AppError, type Logger } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import type { Database, Prisma } from "../db.js";
import type { BoardEntry, BoardRef, LeaderboardStore } from "../leaderboards/leaderboard-store.js";
import { displayRating, displayUncertainty } from "../ratings/display-scale.js";
import { nextRankingPoints } from "../ratings/ranking-points.js";
import { DEFAULT_RATING, type Rating, rateMatch } from "../ratings/rating-model.js";
import { carryOver, seasonName } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import { canonicalCompletion, duplicatePlayers, rosterErrors } from "./completion-rules.js";

export interface CompletionMetrics {
  completed(result: "completed" | "replayed", seconds: number): void;
}

export interface MatchCompletionDeps {
  db: Database;
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

type Tx = Prisma.TransactionClient;

interface LockedPlayer {
  player_id: string;
  seq: bigint;
  total_matches: number;
  total_wins: number;
  total_losses: number;
  total_draws: number;
}

interface CurrentStats {
  player_id: string;
  mu: number;
  sigma: number;
  ranking_points: number;
  points_changed_at: Date;
  wins: number;
  losses: number;
  draws: number;
  matches: number;
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

    const result = await this.deps.db.$transaction(
      (tx) =>
        this.inTransaction(tx, { tenantId, gameId, matchId, body, canonical, season: season.number, now }),
      { maxWait: 10_000, timeout: 20_000 },
    );
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
  private async publish(ref: BoardRef, entries: BoardEntry[], outboxId: bigint): Promise<void> {
    try {
      await this.deps.leaderboards.write(ref, entries);
      await this.deps.db.$executeRaw`DELETE FROM leaderboard_outbox WHERE id = ${outboxId}`;
    } catch (err) {
      this.deps.logger.warn(
        { err, outboxId: outboxId.toString() },
        "leaderboard write deferred to the outbox",
      );
    }
  }

  private async inTransaction(
    tx: Tx,
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
    | { kind: "committed"; answer: CompleteMatchResponse; entries: BoardEntry[]; outboxId: bigint }
  > {
    const { tenantId, gameId, matchId, body, season, now } = c;
    const [match] = await tx.$queryRaw<
      Array<{ game_id: string; status: string; result_request: string | null; result_answer: unknown }>
    >`SELECT game_id, status::text AS status, result_request, result_answer FROM matches
       WHERE tenant_id = ${tenantId} AND match_id = ${matchId} FOR UPDATE`;
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
    const roster = await tx.$queryRaw<Array<{ player_id: string; dropped: boolean }>>`
      SELECT player_id, dropped_at IS NOT NULL AS dropped FROM match_players
       WHERE tenant_id = ${tenantId} AND match_id = ${matchId}`;
    const errors = rosterErrors(
      body,
      roster.map((r) => ({ playerId: r.player_id, dropped: r.dropped })),
    );
    if (errors.length > 0) throw AppError.validation(errors);

    const ids = body.teams.flatMap((t) => t.players.map((p) => p.playerId));
    const sorted = [...ids].sort();
    // Creates new players and locks every one, in a fixed order (no deadlock between completions).
    const locked = await tx.$queryRaw<LockedPlayer[]>`
      INSERT INTO players (tenant_id, player_id, updated_at)
      SELECT ${tenantId}, id, ${now} FROM unnest(${sorted}::text[]) AS id
      ON CONFLICT (tenant_id, player_id) DO UPDATE SET updated_at = EXCLUDED.updated_at
      RETURNING player_id, seq, total_matches, total_wins, total_losses, total_draws`;
    const playerRows = new Map(locked.map((p) => [p.player_id, p]));

    const current = await tx.$queryRaw<CurrentStats[]>`
      SELECT player_id, mu, sigma, ranking_points, points_changed_at, wins, losses, draws, matches
        FROM player_stats
       WHERE tenant_id = ${tenantId} AND game_id = ${gameId} AND season = ${season}
         AND player_id = ANY(${sorted}::text[])`;
    const stats = new Map(current.map((s) => [s.player_id, s]));
    const ratings = await this.startingRatings(
      tx,
      c,
      sorted.filter((id) => !stats.has(id)),
    );
    for (const s of current) ratings.set(s.player_id, { mu: s.mu, sigma: s.sigma });

    const rated = rateMatch(
      body.teams.map((t) => ({ rank: t.rank, players: t.players.map((p) => ratings.get(p.playerId)!) })),
    );
    const updates: PlayerUpdate[] = [];
    body.teams.forEach((team, t) => {
      const teamResult = rated[t]!;
      team.players.forEach((p, i) => {
        const before = stats.get(p.playerId);
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
          pointsChangedAt: before && pointsAfter === pointsBefore ? before.points_changed_at : now,
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
      });
    });

    await this.writeStats(tx, c, updates);
    const seasonSums = await tx.$queryRaw<
      Array<{ player_id: string; wins: number; losses: number; matches: number }>
    >`
      SELECT player_id, SUM(wins)::int AS wins, SUM(losses)::int AS losses, SUM(matches)::int AS matches
        FROM player_stats
       WHERE tenant_id = ${tenantId} AND season = ${season} AND player_id = ANY(${sorted}::text[])
       GROUP BY player_id`;
    const sums = new Map(seasonSums.map((s) => [s.player_id, s]));
    const answer: CompleteMatchResponse = {
      players: updates.map((u) => playerResult(u, sums.get(u.playerId)!, season)),
    };
    await this.writeResults(tx, c, updates);
    await tx.$executeRaw`
      UPDATE matches SET status = 'completed'::"MatchStatus", completed_at = ${now}, updated_at = ${now},
             result_request = ${c.canonical}, result_answer = ${JSON.stringify(answer)}::jsonb
       WHERE tenant_id = ${tenantId} AND match_id = ${matchId}`;
    const [outbox] = await tx.$queryRaw<Array<{ id: bigint }>>`
      INSERT INTO leaderboard_outbox (tenant_id, game_id, season, player_ids)
      VALUES (${tenantId}, ${gameId}, ${season}, ${sorted}::text[]) RETURNING id`;
    const entries = updates.map((u) => ({
      playerId: u.playerId,
      points: u.pointsAfter,
      reachedAt: u.pointsChangedAt,
      seq: u.seq,
    }));
    return { kind: "committed", answer, entries, outboxId: BigInt(outbox!.id) };
  }

  /**
   * Ratings of players new to this game's season: their latest earlier season's rating moved
   * toward the default by each season start since (carry-over), or the default for a new player.
   */
  private async startingRatings(
    tx: Tx,
    c: { tenantId: string; gameId: string; season: number },
    playerIds: string[],
  ): Promise<Map<string, Rating>> {
    const ratings = new Map<string, Rating>();
    if (playerIds.length === 0) return ratings;
    const earlier = await tx.$queryRaw<
      Array<{ player_id: string; season: number; mu: number; sigma: number }>
    >`
      SELECT DISTINCT ON (player_id) player_id, season, mu, sigma FROM player_stats
       WHERE tenant_id = ${c.tenantId} AND game_id = ${c.gameId} AND season < ${c.season}
         AND player_id = ANY(${playerIds}::text[])
       ORDER BY player_id, season DESC`;
    const factorsFrom = new Map<number, number[]>();
    for (const row of earlier) {
      let factors = factorsFrom.get(row.season);
      if (!factors) {
        factors = await this.deps.seasons.carryOverFactors(c.tenantId, c.gameId, row.season, c.season);
        factorsFrom.set(row.season, factors);
      }
      ratings.set(row.player_id, carryOver({ mu: row.mu, sigma: row.sigma }, factors));
    }
    for (const id of playerIds) if (!ratings.has(id)) ratings.set(id, { ...DEFAULT_RATING });
    return ratings;
  }

  private async writeStats(
    tx: Tx,
    c: { tenantId: string; gameId: string; season: number; now: Date },
    u: PlayerUpdate[],
  ) {
    const col = <T>(f: (x: PlayerUpdate) => T) => u.map(f);
    await tx.$executeRaw`
      INSERT INTO player_stats (tenant_id, game_id, season, player_id, mu, sigma, ranking_points,
             points_changed_at, wins, losses, draws, matches, rating_delta_last_game,
             ranking_delta_last_game, board_seq, updated_at)
      SELECT ${c.tenantId}, ${c.gameId}, ${c.season}, v.*, ${c.now}::timestamptz FROM unnest(
             ${col((x) => x.playerId)}::text[], ${col((x) => x.after.mu)}::float8[],
             ${col((x) => x.after.sigma)}::float8[], ${col((x) => x.pointsAfter)}::int[],
             ${col((x) => x.pointsChangedAt.toISOString())}::timestamptz[], ${col((x) => x.wins)}::int[],
             ${col((x) => x.losses)}::int[], ${col((x) => x.draws)}::int[], ${col((x) => x.matches)}::int[],
             ${col((x) => displayRating(x.after) - displayRating(x.before))}::float8[],
             ${col((x) => x.pointsAfter - x.pointsBefore)}::int[], ${col((x) => x.seq.toString())}::bigint[]) AS v
      ON CONFLICT (tenant_id, game_id, season, player_id) DO UPDATE SET
             mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, ranking_points = EXCLUDED.ranking_points,
             points_changed_at = EXCLUDED.points_changed_at, wins = EXCLUDED.wins, losses = EXCLUDED.losses,
             draws = EXCLUDED.draws, matches = EXCLUDED.matches,
             rating_delta_last_game = EXCLUDED.rating_delta_last_game,
             ranking_delta_last_game = EXCLUDED.ranking_delta_last_game,
             board_seq = EXCLUDED.board_seq, updated_at = EXCLUDED.updated_at`;
    await tx.$executeRaw`
      UPDATE players AS p SET seq = v.seq, total_matches = v.m, total_wins = v.w, total_losses = v.l,
             total_draws = v.d, updated_at = ${c.now}
        FROM unnest(${col((x) => x.playerId)}::text[], ${col((x) => x.seq.toString())}::bigint[],
             ${col((x) => x.totals.matches)}::int[], ${col((x) => x.totals.wins)}::int[],
             ${col((x) => x.totals.losses)}::int[], ${col((x) => x.totals.draws)}::int[]) AS v(id, seq, m, w, l, d)
       WHERE p.tenant_id = ${c.tenantId} AND p.player_id = v.id`;
  }

  private async writeResults(
    tx: Tx,
    c: { tenantId: string; gameId: string; matchId: string; season: number; now: Date },
    u: PlayerUpdate[],
  ) {
    const col = <T>(f: (x: PlayerUpdate) => T) => u.map(f);
    await tx.$executeRaw`
      INSERT INTO match_results (tenant_id, match_id, game_id, season, completed_at, player_id, team_index,
             team_rank, outcome, score, predicted_win, mu_before, sigma_before, mu_after, sigma_after,
             points_before, points_after)
      SELECT ${c.tenantId}, ${c.matchId}, ${c.gameId}, ${c.season}, ${c.now}::timestamptz, v.* FROM unnest(
             ${col((x) => x.playerId)}::text[], ${col((x) => x.teamIndex)}::int[], ${col((x) => x.teamRank)}::int[],
             ${col((x) => x.outcome)}::"Outcome"[], ${col((x) => x.score)}::float8[],
             ${col((x) => x.predictedWin)}::float8[], ${col((x) => x.before.mu)}::float8[],
             ${col((x) => x.before.sigma)}::float8[], ${col((x) => x.after.mu)}::float8[],
             ${col((x) => x.after.sigma)}::float8[], ${col((x) => x.pointsBefore)}::int[],
             ${col((x) => x.pointsAfter)}::int[]) AS v`;
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
