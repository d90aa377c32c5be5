import { randomUUID } from "node:crypto";
import type { GameConfig, MatchPlayer, QueuedPlayer, SubmitPlayersRequest } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import { inTransaction, type SqlPool } from "../db.js";
import type { MatchLifecycle } from "../matches/match-lifecycle.js";
import { UNCONFIRMED } from "../matches/match-state.js";
import { RATING_MODEL } from "../ratings/rating-model.js";
import { carryOver } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import { matchmakingRating, submissionEntries, type WaitingPlayer } from "./queue-rules.js";
import {
  ACTIVE_GAMES,
  DELETE_ENTRY,
  DELETE_WAITING,
  ENTRY,
  ENTRY_LOCKED,
  EXPIRE,
  INSERT_SUBMISSION,
  LATEST_STATS,
  LIST,
  QUEUED_AMONG,
  type RatedRow,
  UNCONFIRMED_MATCHES_LOCKED,
  WAITING,
  WAITING_BY_GAME,
} from "./queue-sql.js";

/** A game's matchmaking round takes at most this many waiting players, the longest waiting first. */
export const MAX_PLAYERS_PER_ROUND = 20_000;
/** One game's waiting players as the queue gauges show them. */
export interface GameQueueLength {
  tenantId: string;
  gameId: string;
  waiting: number;
  oldestJoinedAt: Date;
}

/** PostgreSQL's unique_violation: a player already in the tenant's queue. */
const UNIQUE_VIOLATION = "23505";

/**
 * The hosted queue (the README's "Hosted queue and matches"), one row per waiting or matched
 * player in PostgreSQL.
 *
 * A player waits in one game of its tenant at a time (the row's key is tenant and player), so the
 * same player submitted twice, to this game or another, is a 409 and nothing of that submission
 * is queued.
 */
export class QueueStore {
  constructor(
    private readonly deps: {
      pool: SqlPool;
      clock: Clock;
      lifecycle: MatchLifecycle;
      seasons: SeasonStore;
      newId?: () => string;
    },
  ) {}

  /** Queues a submission at once or not at all. */
  async submit(tenantId: string, game: GameConfig, body: SubmitPlayersRequest): Promise<QueuedPlayer[]> {
    const { entries, errors } = submissionEntries(game, body, this.deps.newId ?? randomUUID);
    if (errors.length > 0) throw AppError.validation(errors);
    const now = this.deps.clock.now();
    const ids = entries.map((e) => e.playerId);
    // One statement, so all or nothing without a transaction (one round trip): a player already
    // in the queue (waiting, or in an unconfirmed match) violates the key and nothing is inserted.
    for (let attempt = 1; ; attempt++) {
      try {
        await INSERT_SUBMISSION.run(
          this.deps.pool,
          tenantId,
          game.gameId,
          body.partyName ?? null,
          ids,
          entries.map((e) => e.reference),
          now,
          // One text per player: its servers joined by the unit separator, which no name holds.
          entries.map((e) => e.servers.join("\u001f")),
        );
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
        const queued = await QUEUED_AMONG.run(this.deps.pool, tenantId, ids);
        const held = new Set(queued.rows.map((r) => r.player_id));
        const taken = ids.filter((id) => held.has(id));
        // Gone again before the read (removed, or confirmed meanwhile): try once more.
        if (taken.length === 0 && attempt < 2) continue;
        throw new AppError(
          "CONFLICT",
          `Already waiting or in an unconfirmed match: ${taken.join(", ") || "a player of this request"}; nothing was queued`,
          { extensions: { players: taken } },
        );
      }
    }
    return entries.map((e) => ({ playerId: e.playerId, reference: e.reference, state: "waiting" }));
  }

  /** `GET /games/{gameId}/players`: waiting and matched players, the longest waiting first. */
  async list(tenantId: string, gameId: string): Promise<QueuedPlayer[]> {
    const res = await LIST.run(this.deps.pool, tenantId, gameId);
    return res.rows.map((r) => ({ playerId: r.player_id, state: r.state, reference: r.reference }));
  }

  /**
   * Takes a player out of the queue. A matched player is a 409 unless `force`: then its match
   * fails, the player is removed and the match's other players wait again.
   */
  async remove(tenantId: string, gameId: string, playerId: string, force: boolean): Promise<MatchPlayer> {
    return inTransaction(this.deps.pool, async (tx) => {
      const read = async (lock: boolean) =>
        (await (lock ? ENTRY_LOCKED : ENTRY).run(tx, tenantId, playerId, gameId)).rows[0];
      const seen = await read(false);
      if (seen?.state === "matched" && seen.match_id !== null && force) {
        // A match is locked before its players' rows, in every path, so this cannot deadlock
        // with a confirmation or a failure of the same match.
        const match = await this.deps.lifecycle.matchRow(tx, tenantId, gameId, seen.match_id, true);
        const row = await read(true);
        if (row?.match_id === seen.match_id) {
          await this.deps.lifecycle.failLocked(tx, tenantId, match, { remove: [playerId] });
          return { playerId, reference: row.reference };
        }
      }
      const row = await read(true);
      if (!row) throw new AppError("NOT_FOUND", `Player ${playerId} is not in the queue of game ${gameId}`);
      if (row.state === "matched") {
        throw new AppError(
          "CONFLICT",
          `Player ${playerId} is in match ${row.match_id}; remove it with force=true to fail that match`,
        );
      }
      await DELETE_ENTRY.run(tx, tenantId, playerId);
      return { playerId, reference: row.reference };
    });
  }

  /** `DELETE /games/{gameId}/queue`: every waiting player out, every unconfirmed match failed. */
  async clear(tenantId: string, gameId: string): Promise<{ removed: number; failedMatches: number }> {
    return inTransaction(this.deps.pool, async (tx) => {
      const matches = await UNCONFIRMED_MATCHES_LOCKED.run(tx, tenantId, gameId, UNCONFIRMED);
      let removed = 0;
      for (const match of matches.rows) {
        const failed = await this.deps.lifecycle.failLocked(tx, tenantId, match, { removeEveryone: true });
        removed += failed.removed.length;
      }
      const waiting = await DELETE_WAITING.run(tx, tenantId, gameId);
      return { removed: removed + (waiting.rowCount ?? 0), failedMatches: matches.rows.length };
    });
  }

  /** Removes the game's players who waited longer than `maxQueueSeconds`; answers them. */
  async expire(tenantId: string, game: GameConfig): Promise<MatchPlayer[]> {
    const cutoff = new Date(this.deps.clock.now().getTime() - game.maxQueueSeconds * 1000);
    const res = await EXPIRE.run(this.deps.pool, tenantId, game.gameId, cutoff);
    return res.rows.map((r) => ({ playerId: r.player_id, reference: r.reference }));
  }

  /**
   * The game's waiting players with their current rating in this game, the longest waiting first.
   * `onlyFor` narrows them to solo players who can play on that server (backfill candidates).
   */
  async waiting(tenantId: string, gameId: string, onlyFor?: { server: string }): Promise<WaitingPlayer[]> {
    const season = await this.deps.seasons.current(tenantId);
    const res = await WAITING.run(
      this.deps.pool,
      tenantId,
      gameId,
      season.number,
      MAX_PLAYERS_PER_ROUND,
      onlyFor?.server ?? null,
    );
    const ratings = await this.matchmakingRatings(tenantId, gameId, season.number, res.rows);
    return res.rows.map((r, i) => ({
      playerId: r.player_id,
      partyName: r.party_name,
      servers: r.servers ?? [],
      joinedAt: r.joined_at,
      rating: ratings[i]!,
    }));
  }

  /** These players' matchmaking ratings in the game, in the order given. */
  async ratings(tenantId: string, gameId: string, playerIds: readonly string[]): Promise<number[]> {
    const season = await this.deps.seasons.current(tenantId);
    const res = await LATEST_STATS.run(this.deps.pool, tenantId, gameId, season.number, playerIds);
    return this.matchmakingRatings(tenantId, gameId, season.number, res.rows);
  }

  /** This season's mu, or the latest earlier season's carried over, or a new player's. */
  private async matchmakingRatings(
    tenantId: string,
    gameId: string,
    season: number,
    rows: readonly RatedRow[],
  ): Promise<number[]> {
    const factorsFrom = new Map<number, number[]>();
    const ratings: number[] = [];
    for (const r of rows) {
      let mu: number = RATING_MODEL.mu;
      if (r.mu !== null && r.sigma !== null && r.season !== null) {
        mu = r.mu;
        if (r.season < season) {
          let factors = factorsFrom.get(r.season);
          if (!factors) {
            factors = await this.deps.seasons.carryOverFactors(tenantId, gameId, r.season, season);
            factorsFrom.set(r.season, factors);
          }
          mu = carryOver({ mu: r.mu, sigma: r.sigma }, factors).mu;
        }
      }
      ratings.push(matchmakingRating(mu));
    }
    return ratings;
  }

  /** Tenants and games with waiting players or open suggestions: the loop's work list. */
  async activeGames(): Promise<Array<{ tenantId: string; gameId: string }>> {
    const res = await ACTIVE_GAMES.run(this.deps.pool);
    return res.rows.map((r) => ({ tenantId: r.tenant_id, gameId: r.game_id }));
  }

  /** Every game with waiting players (at most `limit`, the longest waits first): the queue gauges. */
  async waitingByGame(limit: number): Promise<GameQueueLength[]> {
    const res = await WAITING_BY_GAME.run(this.deps.pool, limit);
    return res.rows.map((r) => ({
      tenantId: r.tenant_id,
      gameId: r.game_id,
      waiting: r.waiting,
      oldestJoinedAt: r.oldest_joined_at,
    }));
  }
}
