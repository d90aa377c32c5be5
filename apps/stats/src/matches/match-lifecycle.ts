import type {
  DeliveredMatch,
  FailMatchResponse,
  FieldError,
  Match,
  MatchPlayer,
  MatchSuggestion,
} from "@arena/contracts";
import { AppError, type Logger } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import { inTransaction, type Queryable, type SqlClient, type SqlPool } from "../db.js";
import type { Pusher, PushTarget } from "../push/pusher.js";
import { Batches } from "./batches.js";
import {
  ACKNOWLEDGE,
  CANCEL_BACKFILLS,
  CLAIM_WAITING,
  type ClaimedRow,
  CONFIRM_LOCKED,
  CONFIRM_OPEN,
  DELETE_FROM_QUEUE,
  DELIVERED_MATCHES,
  DELIVERED_ROSTER,
  DUE_FOR_TIME_OUT,
  INSERT_MATCHES,
  INSERT_ROSTER,
  LEAVE_QUEUE,
  MARK_FAILED,
  MATCH_ROW,
  MATCH_ROW_LOCKED,
  type MatchRow,
  PICK_SUGGESTED,
  PUSH_HOLDERS,
  RECORD_PUSH_TARGETS,
  RELEASE_FROM_CONNECTION,
  REQUEUE_CONFIRMED,
  REQUEUE_UNCONFIRMED,
  RETURN_ORPHANED_PUSHES,
  RETURN_UNCLAIMED,
  ROSTER,
  UNCLAIM,
} from "./lifecycle-sql.js";
import { appliesFrom, transition, UNCONFIRMED } from "./match-state.js";

/** `POST /games/{gameId}/matches` answers at most this many suggestions per call. */
export const MAX_FETCHED_MATCHES = 500;
/** A tick re-offers at most this many undelivered suggestions of a game to subscribers. */
const MAX_REOFFERED_PER_TICK = 500;
/**
 * A suggestion set aside for a push (`delivered`, pushed to nobody yet, unacknowledged) is back
 * in `suggested` after this long: the process preparing the push died between its two steps.
 */
const ORPHANED_PUSH_SECONDS = 30;
/** Statuses a match is confirmed from (the state machine's, for the one-statement confirm). */
const CONFIRMABLE = appliesFrom("confirm");
/** A sweep fails at most this many timed-out suggestions of a game per tick. */
const MAX_TIMED_OUT_PER_SWEEP = 1000;

/** Confirmation statements running at once, and confirmations one statement carries at most. */
const MAX_CONCURRENT_CONFIRMS = 2;
const MAX_CONFIRM_BATCH = 64;

/** A confirmation waiting for its statement: settled true when that statement confirmed it. */
interface ConfirmJob {
  tenantId: string;
  gameId: string;
  matchId: string;
  settle(confirmed: boolean | { error: unknown }): void;
}

export interface LifecycleMetrics {
  matchesFormed(gameId: string, count: number): void;
  suggestionsDropped(gameId: string, count: number): void;
  timedOut(gameId: string, count: number): void;
  pushed(kind: "offered" | "unclaimed", count: number): void;
  /** A confirmation statement of `size` confirmations started. */
  confirmBatch?(size: number): void;
}

export interface PlayerUpdateLists {
  remove?: readonly string[];
  requeue?: readonly string[];
  /** Every current player leaves the queue (a queue clear), whatever the lists say. */
  removeEveryone?: boolean;
}

const notFound = (gameId: string, matchId: string) =>
  new AppError("NOT_FOUND", `Match ${matchId} of game ${gameId} does not exist`);

/**
 * The hosted match lifecycle over PostgreSQL, the truth: storing the matchmaker's
 * suggestions, delivery (REST fetch or WebSocket push), confirmation, failure, time-outs.
 *
 * Every change locks the match row first (`FOR UPDATE`), so two requests on one match serialise,
 * and happens in one transaction with the queue rows it moves: a request that fails halfway
 * changes nothing. A player enters a match only through the conditional `waiting → matched`
 * update of its queue row, which is how the database itself keeps a player out of two matches.
 */
export class MatchLifecycle {
  constructor(
    private readonly deps: {
      pool: SqlPool;
      clock: Clock;
      pusher: Pusher;
      logger: Logger;
      metrics?: LifecycleMetrics;
    },
  ) {}

  /**
   * Confirmations grouped as completions are (`Batches`): while two statements run, those that
   * arrive wait, and the next statement confirms up to 64 matches of one tenant at once: one round
   * trip and one commit for all of them instead of one each.
   */
  private readonly confirms = new Batches<ConfirmJob>({
    maxConcurrent: MAX_CONCURRENT_CONFIRMS,
    maxSize: MAX_CONFIRM_BATCH,
    fits: (batch, job) =>
      batch[0]!.tenantId === job.tenantId && batch.every((other) => other.matchId !== job.matchId),
    run: (batch) => this.confirmBatch(batch),
    started: (size) => this.deps.metrics?.confirmBatch?.(size),
  });

  /** Confirmations waiting for a statement. */
  get confirmationsWaiting(): number {
    return this.confirms.backlog;
  }

  /**
   * Stores the matchmaker's suggestions for one game in one transaction. A suggestion any of
   * whose players is no longer waiting (removed, expired, or matched by another loop) is dropped
   * and its other players stay waiting. Answers the stored matches, which are then pushed to the
   * game's WebSocket subscribers.
   *
   * When the game has subscribers, a connection is chosen for each suggestion before the
   * transaction, and each match is stored already `delivered` to it (`pushed_to`), so a REST fetch
   * can never take it and the choice needs no second write; the pushes go out after the commit. A
   * suggestion no connection can take is stored `suggested` (fetchable, offered again next tick).
   * What a tick has in hand (the suggestions, the claimed queue rows) makes the answer: nothing is
   * read back. A choice made for a suggestion that is then dropped counts against its connection's
   * push rate limit without a push (rare: a player left between the loop's read and its store).
   */
  async storeSuggestions(
    tenantId: string,
    gameId: string,
    suggestions: readonly MatchSuggestion[],
    confirmationTimeoutSeconds: number,
  ): Promise<DeliveredMatch[]> {
    if (suggestions.length === 0) return [];
    const { pusher, logger, metrics } = this.deps;
    const now = this.deps.clock.now();
    const playerIds: string[] = [];
    const matchOf: Record<string, string> = {};
    for (const s of suggestions) {
      for (const team of s.teams) {
        for (const ticket of team.tickets) {
          playerIds.push(ticket.ticketId);
          matchOf[ticket.ticketId] = s.id;
        }
      }
    }
    let targets: Array<PushTarget | null> = suggestions.map(() => null);
    if (await pusher.hasSubscribers(tenantId, gameId).catch(() => false)) {
      try {
        targets = await pusher.choose(tenantId, gameId, suggestions.length);
      } catch (err) {
        logger.warn(
          { err, gameId, count: suggestions.length },
          "no push chosen; the suggestions stay fetchable",
        );
      }
    }
    const stored = await inTransaction(this.deps.pool, async (tx) => {
      const claimed = await CLAIM_WAITING.run(tx, tenantId, gameId, playerIds, JSON.stringify(matchOf), now);
      const byPlayer = new Map(claimed.rows.map((r) => [r.player_id, r]));
      const complete: number[] = [];
      const incomplete: string[] = [];
      suggestions.forEach((s, i) => {
        const all = s.teams.every((t) => t.tickets.every((ticket) => byPlayer.has(ticket.ticketId)));
        if (all) complete.push(i);
        else incomplete.push(s.id);
      });
      if (incomplete.length > 0) await UNCLAIM.run(tx, tenantId, incomplete);
      if (complete.length === 0) return [];
      await INSERT_MATCHES.run(
        tx,
        tenantId,
        gameId,
        now,
        complete.map((i) => suggestions[i]!.id),
        complete.map((i) => suggestions[i]!.server),
        complete.map((i) => suggestions[i]!.matchScore),
        confirmationTimeoutSeconds,
        complete.map((i) => targets[i]?.connectionId ?? null),
      );
      const roster = complete.flatMap((i) =>
        suggestions[i]!.teams.flatMap((team, t) =>
          team.tickets.map((ticket) => ({ ...byPlayer.get(ticket.ticketId)!, team: t })),
        ),
      );
      await INSERT_ROSTER.run(tx, tenantId, JSON.stringify(roster));
      return complete.map((i) => ({ index: i, match: deliveredShape(suggestions[i]!, byPlayer) }));
    });
    metrics?.matchesFormed(gameId, stored.length);
    metrics?.suggestionsDropped(gameId, suggestions.length - stored.length);
    const pushes = stored.flatMap(({ index, match }) => {
      const target = targets[index];
      return target ? [{ target, match }] : [];
    });
    if (stored.length > pushes.length) metrics?.pushed("unclaimed", stored.length - pushes.length);
    await this.send(tenantId, gameId, pushes);
    return stored.map((s) => s.match);
  }

  /** `POST /games/{gameId}/matches`: the undelivered suggestions, now delivered (and acknowledged). */
  async fetchUndelivered(tenantId: string, gameId: string): Promise<DeliveredMatch[]> {
    // The pick is one statement (atomic alone), and most polls find nothing: no transaction, one
    // round trip. What was picked is then read as it is (a backfill may have changed a roster since,
    // as it may after any delivery).
    const now = this.deps.clock.now();
    const picked = await PICK_SUGGESTED.run(this.deps.pool, tenantId, gameId, now, MAX_FETCHED_MATCHES, true);
    return this.delivered(this.deps.pool, tenantId, oldestFirst(picked.rows));
  }

  /** `GET /games/{gameId}/matches/{matchId}`. */
  async get(tenantId: string, gameId: string, matchId: string): Promise<Match> {
    const client = await this.deps.pool.connect();
    try {
      const row = await this.matchRow(client, tenantId, gameId, matchId, false);
      const [match] = await this.delivered(client, tenantId, [matchId]);
      return {
        ...match!,
        gameId,
        status: row.status,
        createdAt: row.created_at.toISOString(),
        updatedAt: row.updated_at.toISOString(),
      };
    } finally {
      client.release();
    }
  }

  /** `matchSuggestionDelivery`: records the first acknowledgement; idempotent. */
  async acknowledge(tenantId: string, gameId: string, matchId: string): Promise<void> {
    const res = await ACKNOWLEDGE.run(this.deps.pool, tenantId, gameId, matchId, this.deps.clock.now());
    if (res.rowCount === 0) throw notFound(gameId, matchId);
  }

  /**
   * Confirms a match: its players leave the queue (they are playing). Players in `remove` or
   * `requeue` mean the match cannot go ahead: it fails instead, as Idem's API does.
   */
  async confirm(tenantId: string, gameId: string, matchId: string, lists: PlayerUpdateLists): Promise<void> {
    if ((lists.remove?.length ?? 0) + (lists.requeue?.length ?? 0) > 0) {
      await this.fail(tenantId, gameId, matchId, lists);
      return;
    }
    // The common case in one statement shared with the confirmations arriving meanwhile; the rest
    // is decided on the locked row below.
    const fast = await new Promise<boolean>((resolve, reject) =>
      this.confirms.submit({
        tenantId,
        gameId,
        matchId,
        settle: (r) => (typeof r === "boolean" ? resolve(r) : reject(r.error)),
      }),
    );
    if (fast) return;
    const now = this.deps.clock.now();
    // Otherwise: not found, already confirmed (a repeat), or refused, decided on the locked row.
    await inTransaction(this.deps.pool, async (tx) => {
      const match = await this.matchRow(tx, tenantId, gameId, matchId, true);
      const verdict = transition(match.status, "confirm");
      if (verdict.kind === "refuse") throw new AppError("CONFLICT", `Match ${matchId}: ${verdict.detail}`);
      if (verdict.kind === "repeat") return;
      await CONFIRM_LOCKED.run(tx, tenantId, matchId, now);
      await LEAVE_QUEUE.run(tx, tenantId, matchId);
    });
  }

  /**
   * One statement for a batch of confirmations (one tenant, distinct matches); settles each job
   * and never rejects. If it fails (a deadlock with another batch or a time-out sweep locking the
   * same matches in another order), each confirmation runs again alone, so one cannot fail another.
   */
  private async confirmBatch(batch: readonly ConfirmJob[]): Promise<void> {
    const { tenantId } = batch[0]!;
    try {
      const res = await CONFIRM_OPEN.run(
        this.deps.pool,
        tenantId,
        batch.map((j) => j.matchId),
        batch.map((j) => j.gameId),
        this.deps.clock.now(),
        CONFIRMABLE,
      );
      const confirmed = new Set(res.rows.map((r) => r.match_id));
      for (const job of batch) job.settle(confirmed.has(job.matchId));
    } catch (error) {
      if (batch.length === 1) batch[0]!.settle({ error });
      else for (const job of batch) await this.confirmBatch([job]);
    }
  }

  /**
   * Fails a match: players in `remove` leave the queue, every other player of its roster goes
   * back to waiting with its original join time. Failing a failed match answers the first
   * failure's lists again.
   */
  async fail(
    tenantId: string,
    gameId: string,
    matchId: string,
    lists: PlayerUpdateLists,
  ): Promise<FailMatchResponse> {
    return inTransaction(this.deps.pool, async (tx) => {
      const match = await this.matchRow(tx, tenantId, gameId, matchId, true);
      return this.failLocked(tx, tenantId, match, lists);
    });
  }

  /**
   * Fails a match whose row the transaction has locked. Also used by a forced removal, a queue
   * clear and the confirmation time-out.
   */
  async failLocked(
    tx: SqlClient,
    tenantId: string,
    match: Pick<MatchRow, "match_id" | "status" | "result_answer">,
    lists: PlayerUpdateLists,
  ): Promise<FailMatchResponse> {
    const verdict = transition(match.status, "fail");
    if (verdict.kind === "refuse")
      throw new AppError("CONFLICT", `Match ${match.match_id}: ${verdict.detail}`);
    if (verdict.kind === "repeat") return match.result_answer as FailMatchResponse;
    const now = this.deps.clock.now();
    const roster = await ROSTER.run(tx, tenantId, match.match_id);
    const active = roster.rows.filter((p) => !p.dropped);
    const errors = listErrors(new Set(active.map((p) => p.player_id)), lists);
    if (errors.length > 0) throw AppError.validation(errors);
    const removeSet = new Set(lists.removeEveryone ? active.map((p) => p.player_id) : (lists.remove ?? []));
    const player = (p: { player_id: string; reference: string | null }): MatchPlayer => ({
      playerId: p.player_id,
      reference: p.reference,
    });
    const answer: FailMatchResponse = {
      removed: active.filter((p) => removeSet.has(p.player_id)).map(player),
      requeued: active.filter((p) => !removeSet.has(p.player_id)).map(player),
    };
    const removedIds = answer.removed.map((p) => p.playerId);
    const requeuedIds = answer.requeued.map((p) => p.playerId);
    if (UNCONFIRMED.includes(match.status)) {
      await DELETE_FROM_QUEUE.run(tx, tenantId, match.match_id, removedIds);
      await REQUEUE_UNCONFIRMED.run(tx, tenantId, match.match_id, now);
    } else {
      await REQUEUE_CONFIRMED.run(tx, tenantId, match.match_id, requeuedIds, now);
    }
    await MARK_FAILED.run(tx, tenantId, match.match_id, JSON.stringify(answer), now);
    await CANCEL_BACKFILLS.run(tx, tenantId, match.match_id, now);
    return answer;
  }

  /** Fails the game's suggestions left unconfirmed past their deadline; every player is requeued. */
  async timeOut(tenantId: string, gameId: string): Promise<number> {
    const now = this.deps.clock.now();
    const count = await inTransaction(this.deps.pool, async (tx) => {
      const due = await DUE_FOR_TIME_OUT.run(tx, tenantId, gameId, now, MAX_TIMED_OUT_PER_SWEEP);
      for (const match of due.rows) await this.failLocked(tx, tenantId, match, {});
      return due.rows.length;
    });
    if (count > 0) this.deps.metrics?.timedOut(gameId, count);
    return count;
  }

  /**
   * A WebSocket connection closed: what was pushed to it and never acknowledged is offered to
   * another subscriber (or left for a REST fetch).
   */
  async connectionClosed(tenantId: string, connectionId: string): Promise<number> {
    // Set aside again (pushed to nobody), as a new suggestion for subscribers is.
    const released = await RELEASE_FROM_CONNECTION.run(
      this.deps.pool,
      tenantId,
      connectionId,
      this.deps.clock.now(),
    );
    const byGame = new Map<string, string[]>();
    for (const r of released.rows) byGame.set(r.game_id, [...(byGame.get(r.game_id) ?? []), r.match_id]);
    for (const [gameId, ids] of byGame) {
      await this.push(tenantId, gameId, await this.delivered(this.deps.pool, tenantId, ids), [connectionId]);
    }
    return released.rows.length;
  }

  /**
   * Offers the game's undelivered suggestions again (a subscriber may have arrived since), in one
   * batch; first returns to `suggested` what a process died setting aside for a push, and offers
   * again what was pushed to connections that are gone without a close notice (a gateway replica
   * killed: its registrations expire unrefreshed), as a closing connection's notice would.
   */
  async offerUndelivered(tenantId: string, gameId: string): Promise<void> {
    const now = this.deps.clock.now();
    await RETURN_ORPHANED_PUSHES.run(this.deps.pool, tenantId, gameId, now, ORPHANED_PUSH_SECONDS);
    await this.releaseFromGoneConnections(tenantId, gameId);
    if (!(await this.deps.pusher.hasSubscribers(tenantId, gameId).catch(() => false))) return;
    const claimed = await PICK_SUGGESTED.run(
      this.deps.pool,
      tenantId,
      gameId,
      now,
      MAX_REOFFERED_PER_TICK,
      false,
    );
    if (claimed.rows.length === 0) return;
    await this.push(
      tenantId,
      gameId,
      await this.delivered(this.deps.pool, tenantId, oldestFirst(claimed.rows)),
    );
  }

  private async releaseFromGoneConnections(tenantId: string, gameId: string): Promise<void> {
    const holders = await PUSH_HOLDERS.run(this.deps.pool, tenantId, gameId);
    if (holders.rows.length === 0) return;
    const connections = holders.rows.map((r) => r.pushed_to);
    const gone = await this.deps.pusher.gone(tenantId, connections).catch((err: unknown) => {
      this.deps.logger.warn({ err, gameId }, "could not check the push holders' registrations");
      return [];
    });
    for (const connectionId of gone) await this.connectionClosed(tenantId, connectionId);
  }

  /**
   * Pushes suggestions the caller has set aside (`delivered`, pushed to nobody: a REST fetch
   * cannot deliver them a second time) to subscribed connections: one script call chooses a
   * connection for each, the choice is recorded, and only then are they sent (one pipeline), so
   * no game server can confirm a match whose push is still being recorded: recording never waits
   * for a confirmation's row lock. What nobody took goes back to `suggested`. Redis failing is
   * logged: the suggestions stay fetchable (or, failing after the record, time out and requeue).
   */
  private async push(
    tenantId: string,
    gameId: string,
    matches: readonly DeliveredMatch[],
    exclude?: readonly string[],
  ): Promise<void> {
    if (matches.length === 0) return;
    const { pusher, pool, logger, metrics } = this.deps;
    let targets: Array<PushTarget | null> = matches.map(() => null);
    try {
      targets = await pusher.choose(tenantId, gameId, matches.length, exclude);
    } catch (err) {
      logger.warn(
        { err, gameId, count: matches.length },
        "match suggestion push failed; they stay fetchable",
      );
    }
    const pushed: Array<{ target: PushTarget; match: DeliveredMatch }> = [];
    const unclaimed: string[] = [];
    for (const [i, match] of matches.entries()) {
      const target = targets[i];
      if (target) pushed.push({ target, match });
      else unclaimed.push(match.id);
    }
    if (unclaimed.length > 0) {
      metrics?.pushed("unclaimed", unclaimed.length);
      await RETURN_UNCLAIMED.run(pool, tenantId, unclaimed);
    }
    if (pushed.length === 0) return;
    await RECORD_PUSH_TARGETS.run(
      pool,
      tenantId,
      pushed.map((p) => p.match.id),
      JSON.stringify(Object.fromEntries(pushed.map((p) => [p.match.id, p.target.connectionId]))),
    );
    await this.send(tenantId, gameId, pushed);
  }

  /** Sends pushes whose connections are recorded; a failure is logged (see `push`). */
  private async send(
    tenantId: string,
    gameId: string,
    pushed: ReadonlyArray<{ target: PushTarget; match: DeliveredMatch }>,
  ): Promise<void> {
    if (pushed.length === 0) return;
    const { pusher, logger, metrics } = this.deps;
    try {
      await pusher.send(
        tenantId,
        gameId,
        pushed.map(({ target, match }) => ({
          target,
          message: { action: "matchSuggestion", messageId: null, payload: { gameId, match } },
        })),
      );
      metrics?.pushed("offered", pushed.length);
    } catch (err) {
      // Recorded as pushed to connections that never got them: unconfirmed, they time out and
      // their players are requeued; a closing connection's notice re-offers them sooner.
      logger.warn(
        { err, gameId, count: pushed.length },
        "match suggestion push failed after it was recorded",
      );
    }
  }

  /** The match row (locked when asked), or a 404 (also when it belongs to another game). */
  async matchRow(
    tx: Queryable,
    tenantId: string,
    gameId: string,
    matchId: string,
    lock: boolean,
  ): Promise<MatchRow> {
    const res = await (lock ? MATCH_ROW_LOCKED : MATCH_ROW).run(tx, tenantId, matchId);
    const row = res.rows[0];
    if (!row || row.game_id !== gameId) throw notFound(gameId, matchId);
    return row;
  }

  /** The delivered shape of these matches, in the order given; teams hold the current roster. */
  private async delivered(
    tx: Queryable,
    tenantId: string,
    matchIds: readonly string[],
  ): Promise<DeliveredMatch[]> {
    if (matchIds.length === 0) return [];
    const ids = [...matchIds];
    const [matches, roster] = [
      await DELIVERED_MATCHES.run(tx, tenantId, ids),
      await DELIVERED_ROSTER.run(tx, tenantId, ids),
    ];
    const byId = new Map(matches.rows.map((m) => [m.match_id, m]));
    const teams = new Map<string, MatchPlayer[][]>();
    for (const p of roster.rows) {
      let t = teams.get(p.match_id);
      if (!t) {
        t = [];
        teams.set(p.match_id, t);
      }
      while (t.length <= p.team) t.push([]);
      t[p.team]!.push({ playerId: p.player_id, reference: p.reference });
    }
    return matchIds.flatMap((id) => {
      const m = byId.get(id);
      if (!m) return [];
      return [
        {
          id,
          uuid: id,
          server: m.server,
          matchScore: m.match_score,
          teams: (teams.get(id) ?? []).filter((t) => t.length > 0).map((players) => ({ players })),
        },
      ];
    });
  }
}

/**
 * A stored suggestion as delivered, from the queue rows its transaction claimed: each team's
 * players in the order `delivered` reads them (join time, then id).
 */
function deliveredShape(s: MatchSuggestion, claimed: ReadonlyMap<string, ClaimedRow>): DeliveredMatch {
  return {
    id: s.id,
    uuid: s.id,
    server: s.server,
    matchScore: s.matchScore,
    teams: s.teams
      .map((team) =>
        team.tickets
          .map((ticket) => claimed.get(ticket.ticketId)!)
          .sort(
            (a, b) => a.joined_at.getTime() - b.joined_at.getTime() || compareText(a.player_id, b.player_id),
          )
          .map((r) => ({ playerId: r.player_id, reference: r.reference })),
      )
      .filter((players) => players.length > 0)
      .map((players) => ({ players })),
  };
}

/** Ids in code point order: the order `delivered` reads them in under a C or C.UTF-8 collation. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Picked suggestions in the order they were made (an UPDATE's RETURNING keeps none). */
function oldestFirst(rows: Array<{ match_id: string; created_at: Date }>): string[] {
  return rows
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.match_id.localeCompare(b.match_id))
    .map((r) => r.match_id);
}

/** `remove`/`requeue` may only name the match's current players, each in one list. */
function listErrors(roster: ReadonlySet<string>, lists: PlayerUpdateLists): FieldError[] {
  const errors: FieldError[] = [];
  const removed = new Set(lists.remove ?? []);
  for (const [i, id] of (lists.remove ?? []).entries()) {
    if (!roster.has(id)) errors.push({ pointer: `/remove/${i}`, detail: "is not a player of this match" });
  }
  for (const [i, id] of (lists.requeue ?? []).entries()) {
    if (!roster.has(id)) errors.push({ pointer: `/requeue/${i}`, detail: "is not a player of this match" });
    else if (removed.has(id)) errors.push({ pointer: `/requeue/${i}`, detail: "is also in remove" });
  }
  return errors;
}
