import type { CompleteMatchRequest, CompleteMatchResponse, PlayerResult } from "@arena/contracts";
import { AppError, type Logger } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import {
  isRetryable,
  prepare,
  type SqlClient,
  type SqlPool,
  sqlLiteral,
  TRANSACTION_ATTEMPTS,
} from "../db.js";
import type { BoardEntry, BoardRef, LeaderboardStore } from "../leaderboards/leaderboard-store.js";
import { displayRating, displayUncertainty } from "../ratings/display-scale.js";
import { DEFAULT_RATING, type Rating } from "../ratings/rating-model.js";
import { carryOver, seasonName } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import { Batches } from "./batches.js";
import { type RatedPlayer, rateCompletion, type SeasonStanding } from "./completion-rating.js";
import { canonicalCompletion, duplicatePlayers, rosterErrors } from "./completion-rules.js";
import {
  COMPLETION_STATEMENTS,
  type CompletionLiterals,
  completionLiterals,
  LOCK_PLAYERS,
  type LockJob,
  OPEN_MATCH,
  STARTING_POINTS,
  WRITE_RESULT,
} from "./completion-sql.js";

export interface CompletionMetrics {
  completed(result: "completed" | "replayed", seconds: number): void;
  /** A transaction of `size` completions started. */
  batch(size: number): void;
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
  /** Completion transactions running at once (default 4); each holds a pooled connection. */
  maxConcurrentBatches?: number;
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
  roster: Array<[string, boolean, number]>;
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

/** A player's rating step, with its totals and leaderboard sequence (locked rows) added. */
interface PlayerUpdate extends RatedPlayer {
  seq: bigint;
  totals: { matches: number; wins: number; losses: number; draws: number };
}

/** One completion as a batch carries it: the request, and how to answer it. */
interface Job {
  /** The completion this job carries: tenant, game, match, body, season, time. */
  context: CompletionContext;
  /** The body's player ids, sorted. */
  players: string[];
  settle(result: TxResult | { kind: "failed"; error: unknown }): void;
}

interface CompletionContext {
  tenantId: string;
  gameId: string;
  matchId: string;
  body: CompleteMatchRequest;
  canonical: string;
  season: number;
  now: Date;
}

type Committed = {
  kind: "committed";
  answer: CompleteMatchResponse;
  entries: BoardEntry[];
  outboxId: string;
};
type TxResult = { kind: "replayed"; answer: CompleteMatchResponse } | Committed;

/** A batch's transaction: the completions it committed (answered once published), and a failure. */
interface BatchOutcome {
  committed: ReadonlyArray<readonly [Job, Committed]>;
  failed?: Failed;
}

/** A job's fate once its match row is read under lock. */
type Verdict =
  | { kind: "proceed" }
  | { kind: "replayed"; answer: CompleteMatchResponse }
  | { kind: "refused"; error: AppError };

/** Batches running at once, and completions per batch at most (see `Batches`). */
const MAX_CONCURRENT_BATCHES = 4;
const MAX_BATCH_SIZE = 32;

/**
 * Completing a match: ratings, counts, ranking points, history and the stored answer in one
 * PostgreSQL transaction keyed by the match, then the leaderboard write in Redis.
 *
 * Completions are grouped (`Batches`): while four transactions are running, the completions that
 * arrive wait, and the next transaction carries up to 32 of them, matches and players all
 * distinct. A transaction is two round trips on a pooled `pg` connection, whatever it carries:
 * BEGIN with the match locks and rosters, the players' creation and locks and their starting
 * points; then one statement per match writing statistics, totals, history, the match and the
 * outbox, with the COMMIT. The statements (`completion-sql.ts`) are prepared once per connection.
 * Under the queue benchmark, round trips and commits were most of a completion's cost, on both
 * sides of the socket.
 *
 * - Match rows are locked first, then players, each in one sorted order (tenant, then id), so
 *   transactions sharing a player serialise on that player's row and never deadlock; statistics
 *   are read after the locks, so no update is lost.
 * - A replay waits for the first completion's lock and then gets its stored answer (same body)
 *   or a 409 (a different one).
 * - Players are created and locked only for completions whose match is confirmed, of their game,
 *   and reported as its roster (the SQL applies `rosterErrors`' rule): a refused completion or a
 *   replay touches no player, is answered from what was read under the match lock, and the rest
 *   of its transaction goes on. A write that fails rolls the transaction back and each of its
 *   completions runs again alone, so one bad completion cannot fail another.
 * - The leaderboard write is recorded in the outbox inside the transaction and removed once Redis
 *   has it; if Redis fails, the outbox worker applies it later, so the board converges.
 */
export class MatchCompletion {
  private readonly batches: Batches<Job>;

  constructor(private readonly deps: MatchCompletionDeps) {
    this.batches = new Batches<Job>({
      maxConcurrent: deps.maxConcurrentBatches ?? MAX_CONCURRENT_BATCHES,
      maxSize: MAX_BATCH_SIZE,
      fits: (batch, job) => batch.every((other) => !sharesMatchOrPlayer(other, job)),
      run: (batch) => this.runBatch(batch),
      started: (size) => deps.metrics?.batch(size),
    });
  }

  /** Completions waiting for a transaction. */
  get waiting(): number {
    return this.batches.backlog;
  }

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
    const context = {
      tenantId,
      gameId,
      matchId,
      body,
      canonical,
      season: season.number,
      now: this.deps.clock.now(),
    };
    const players = body.teams.flatMap((t) => t.players.map((p) => p.playerId)).sort();
    const result = await new Promise<TxResult>((resolve, reject) =>
      this.batches.submit({
        context,
        players,
        settle: (r) => (r.kind === "failed" ? reject(r.error) : resolve(r)),
      }),
    );
    this.deps.metrics?.completed(
      result.kind === "replayed" ? "replayed" : "completed",
      Number(process.hrtime.bigint() - started) / 1e9,
    );
    return { answer: result.answer, replayed: result.kind === "replayed" };
  }

  /**
   * Sends a batch's committed entries to the leaderboard, one write per board (a batch's players
   * are distinct, so its entries never race each other); each outbox row goes once Redis has its
   * entries. A failed write is logged: the outbox worker applies it later.
   */
  private async publish(committed: ReadonlyArray<readonly [Job, Committed]>): Promise<void> {
    const boards = new Map<string, { ref: BoardRef; entries: BoardEntry[]; outboxIds: string[] }>();
    for (const [job, result] of committed) {
      const { tenantId, gameId, season } = job.context;
      const key = `${tenantId}\u0000${gameId}\u0000${season}`;
      let board = boards.get(key);
      if (!board) {
        board = { ref: { tenantId, gameId, season }, entries: [], outboxIds: [] };
        boards.set(key, board);
      }
      board.entries.push(...result.entries);
      board.outboxIds.push(result.outboxId);
    }
    for (const { ref, entries, outboxIds } of boards.values()) {
      try {
        await this.deps.leaderboards.write(ref, entries);
        for (const id of outboxIds) this.deps.outbox.acknowledge(id);
      } catch (err) {
        this.deps.logger.warn({ err, outboxIds }, "leaderboard write deferred to the outbox");
      }
    }
  }

  /**
   * Runs one batch on one connection and settles every job in it; never rejects. A batch that
   * failed runs again one completion per transaction, so one bad completion cannot fail another;
   * a completion alone that PostgreSQL chose as a deadlock victim runs again (three times at most).
   */
  private async runBatch(jobs: Job[], attempt = 1): Promise<void> {
    let outcome: BatchOutcome;
    try {
      const client = await this.deps.pool.connect();
      try {
        outcome = await this.transaction(client, jobs);
      } finally {
        client.release();
      }
    } catch (error) {
      outcome = { committed: [], failed: { jobs, error } };
    }
    // The leaderboard is written once the connection is back in the pool, before the answers.
    if (outcome.committed.length > 0) await this.publish(outcome.committed);
    for (const [job, result] of outcome.committed) job.settle(result);
    const { failed } = outcome;
    if (failed === undefined) return;
    if (failed.jobs.length > 1) {
      for (const job of failed.jobs) await this.runBatch([job]);
    } else if (attempt < TRANSACTION_ATTEMPTS && isRetryable(failed.error)) {
      await this.runBatch(failed.jobs, attempt + 1);
    } else {
      for (const job of failed.jobs) job.settle({ kind: "failed", error: failed.error });
    }
  }

  /**
   * The batch's transaction on `tx`. Settles the refused and replayed jobs; answers the committed
   * ones (settled by `runBatch` once published), or those left unsettled by a failed statement,
   * with its error (the transaction rolled back).
   */
  private async transaction(tx: SqlClient, batch: Job[]): Promise<BatchOutcome> {
    let jobs = [...batch].sort((a, b) =>
      compareKeys(a.context.tenantId, a.context.matchId, b.context.tenantId, b.context.matchId),
    );
    try {
      const read = await this.open(tx, jobs);
      const all = jobs;
      const going = all.flatMap((_job, i) => (read.verdicts[i]!.kind === "proceed" ? [i] : []));
      // The lock applies the roster check's rule in SQL: it locked exactly the players of the
      // completions going ahead. Should the two ever disagree, nothing is kept and each completion
      // fails alone (runBatch) instead of being rated from rows it did not lock.
      all.forEach((job, i) => {
        const locked = job.players.filter((p) => read.locked.has(playerKey(job.context.tenantId, p))).length;
        if (locked !== (going.includes(i) ? job.players.length : 0)) {
          throw new Error(`the players lock and the roster check disagree on match ${job.context.matchId}`);
        }
      });
      // Refused and replayed completions touched no player: they are answered from what was read
      // under the match lock, and the others go on in this transaction.
      all.forEach((job, i) => {
        const v = read.verdicts[i]!;
        if (v.kind === "replayed") job.settle(v);
        else if (v.kind === "refused") job.settle({ kind: "failed", error: v.error });
      });
      jobs = going.map((i) => all[i]!);
      if (jobs.length === 0) {
        await tx.query("ROLLBACK");
        return { committed: [] };
      }
      const rated = await Promise.all(going.map((i) => this.rate(all[i]!, read, i)));
      const writes = rated.map((r, k) => this.writeStatement(tx, read.literals[going[k]!]!, jobs[k]!, r));
      const written = (await tx.query(`${writes.join(";\n")}; COMMIT`)) as unknown as Array<{
        rows: Array<{ id: string }>;
      }>;
      return {
        committed: jobs.map((job, k) => {
          const { answer, entries } = rated[k]!;
          return [job, { kind: "committed", answer, entries, outboxId: written[k]!.rows[0]!.id }] as const;
        }),
      };
    } catch (error) {
      await tx.query("ROLLBACK").catch(() => {});
      return { committed: [], failed: { jobs, error } };
    }
  }

  /**
   * The first round trip: BEGIN, every match locked with its roster (sorted by tenant and match),
   * the players of the completions that pass the roster check created and locked per tenant
   * (sorted), their starting points per match. The simple-query protocol takes no parameters: the
   * values are escaped literals. The statements keep one generic plan each (checked on large
   * tables by completion-plans.test): left to choose, PostgreSQL planned the starting points' read
   * again for every match.
   */
  private async open(tx: SqlClient, jobs: Job[]): Promise<BatchRead> {
    await prepare(tx, COMPLETION_STATEMENTS);
    const literals = jobs.map((job) => completionLiterals(job.context, job.players));
    const tenants = new Map<string, LockJob[]>();
    for (const job of jobs) {
      const lockJobs = tenants.get(job.context.tenantId) ?? [];
      tenants.set(job.context.tenantId, lockJobs);
      lockJobs.push(lockJob(job.context));
    }
    const tenantIds = [...tenants.keys()].sort();
    const now = sqlLiteral(this.deps.clock.now().toISOString());
    const statements = [
      "BEGIN",
      "SET LOCAL plan_cache_mode = force_generic_plan",
      ...literals.map((sql) => OPEN_MATCH.sqlFor(tx, sql.tenant, sql.match)),
      ...tenantIds.map((t) =>
        LOCK_PLAYERS.sqlFor(tx, sqlLiteral(t), now, sqlLiteral(JSON.stringify(tenants.get(t)))),
      ),
      ...literals.map((sql) =>
        STARTING_POINTS.sqlFor(tx, sql.tenant, sql.game, sql.season, sql.ids, sql.match),
      ),
    ];
    const results = (await tx.query(statements.join(";\n"))) as unknown as Array<{ rows: unknown[] }>;
    const matches = results.slice(2, 2 + jobs.length).map((r) => r.rows[0] as MatchRow | undefined);
    const locked = new Map<string, LockedPlayer>();
    tenantIds.forEach((t, i) => {
      for (const row of results[2 + jobs.length + i]!.rows as LockedPlayer[])
        locked.set(playerKey(t, row.player_id), row);
    });
    const starts = results.slice(2 + jobs.length + tenantIds.length).map((r) => r.rows as StartingPoint[]);
    return { verdicts: jobs.map((job, i) => verdict(job.context, matches[i])), locked, starts, literals };
  }

  /** A proceeding job's new ratings, counts and answer, from what the first round trip read. */
  private async rate(
    job: Job,
    read: BatchRead,
    i: number,
  ): Promise<{ updates: PlayerUpdate[]; answer: CompleteMatchResponse; entries: BoardEntry[] }> {
    const c = job.context;
    const { body, season, now } = c;
    const starts = read.starts[i]!;
    const start = new Map(starts.map((r) => [r.player_id, r]));
    const ratings = await this.startingRatings(c, starts);

    const teams = body.teams.map((team) => ({
      rank: team.rank,
      players: team.players.map((p) => ({
        playerId: p.playerId,
        score: p.score,
        rating: ratings.get(p.playerId)!,
        standing: standingOf(start.get(p.playerId)!, season),
      })),
    }));
    const updates: PlayerUpdate[] = rateCompletion(teams, now).map((rated) => {
      const player = read.locked.get(playerKey(c.tenantId, rated.playerId))!;
      return {
        ...rated,
        seq: BigInt(player.seq) + 1n,
        totals: {
          matches: player.total_matches + 1,
          wins: player.total_wins + (rated.outcome === "win" ? 1 : 0),
          losses: player.total_losses + (rated.outcome === "loss" ? 1 : 0),
          draws: player.total_draws + (rated.outcome === "draw" ? 1 : 0),
        },
      };
    });
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
    const entries = updates.map((u) => ({
      playerId: u.playerId,
      points: u.pointsAfter,
      reachedAt: u.pointsChangedAt,
      seq: u.seq,
    }));
    return { updates, answer, entries };
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

  /** A job's `WRITE_RESULT`; the rows travel as one JSON literal (numbers in full precision). */
  private writeStatement(
    tx: SqlClient,
    sql: CompletionLiterals,
    job: Job,
    { updates: u, answer }: { updates: PlayerUpdate[]; answer: CompleteMatchResponse },
  ): string {
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
      rating_delta: x.ratingDelta,
      ranking_delta: x.rankingDelta,
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
    const lit = (value: string) => sqlLiteral(value);
    return WRITE_RESULT.sqlFor(
      tx,
      lit(JSON.stringify(rows)),
      sql.tenant,
      sql.game,
      sql.season,
      sql.match,
      sql.now,
      lit(job.context.canonical),
      lit(JSON.stringify(answer)),
      sql.ids,
    );
  }
}

/** What a batch's first round trip read, per job in the batch's order. */
interface BatchRead {
  verdicts: Verdict[];
  /** Locked players by `playerKey`. */
  locked: Map<string, LockedPlayer>;
  starts: StartingPoint[][];
  literals: CompletionLiterals[];
}

/** A completion goes ahead only for a confirmed match of this game, with exactly its roster. */
function verdict(c: CompletionContext, match: MatchRow | undefined): Verdict {
  if (!match || match.game_id !== c.gameId) {
    return {
      kind: "refused",
      error: new AppError("NOT_FOUND", `Match ${c.matchId} of game ${c.gameId} does not exist`),
    };
  }
  if (match.status === "completed") {
    if (match.result_request === c.canonical) {
      return { kind: "replayed", answer: match.result_answer as CompleteMatchResponse };
    }
    return {
      kind: "refused",
      error: new AppError("CONFLICT", `Match ${c.matchId} was already completed with a different result`),
    };
  }
  if (match.status !== "confirmed") {
    return {
      kind: "refused",
      error: new AppError(
        "CONFLICT",
        `Match ${c.matchId} is ${match.status}; only a confirmed match can be completed`,
      ),
    };
  }
  const errors = rosterErrors(
    c.body,
    match.roster.map(([playerId, dropped, team]) => ({ playerId, dropped, team })),
  );
  return errors.length > 0 ? { kind: "refused", error: AppError.validation(errors) } : { kind: "proceed" };
}

/** A completion as the players lock reads it: who the body reports in which team. */
function lockJob(c: CompletionContext): LockJob {
  return {
    match_id: c.matchId,
    game_id: c.gameId,
    teams: c.body.teams.length,
    players: c.body.teams.flatMap((team, t) => team.players.map((p) => ({ id: p.playerId, team: t }))),
  };
}

/** Jobs a failed statement left unsettled, and its error. */
interface Failed {
  jobs: Job[];
  error: unknown;
}

/** A player of a tenant, as one map key (the separator is in no tenant id). */
const playerKey = (tenantId: string, playerId: string) => `${tenantId}\u0000${playerId}`;

function sharesMatchOrPlayer(a: Job, b: Job): boolean {
  if (a.context.tenantId !== b.context.tenantId) return false;
  if (a.context.matchId === b.context.matchId) return true;
  const players = new Set(a.players);
  return b.players.some((p) => players.has(p));
}

/** The player's row of this game this season, if it has one (else it starts from zero). */
function standingOf(row: StartingPoint, season: number): SeasonStanding | undefined {
  if (row.season !== season) return undefined;
  return {
    points: row.ranking_points ?? 0,
    pointsChangedAt: row.points_changed_at,
    wins: row.wins ?? 0,
    losses: row.losses ?? 0,
    draws: row.draws ?? 0,
    matches: row.matches ?? 0,
  };
}

function compareKeys(tenantA: string, idA: string, tenantB: string, idB: string): number {
  if (tenantA !== tenantB) return tenantA < tenantB ? -1 : 1;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

function playerResult(
  u: PlayerUpdate,
  sums: { wins: number; losses: number; matches: number },
  season: number,
): PlayerResult {
  return {
    playerId: u.playerId,
    rating: displayRating(u.after),
    ratingUncertainty: displayUncertainty(u.after),
    rankingPoints: u.pointsAfter,
    ratingDeltaLastGame: u.ratingDelta,
    rankingDeltaLastGame: u.rankingDelta,
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
