import { randomUUID } from "node:crypto";
import type { BackfillRequest, BackfillStatus, BackfillSuggestion, GameConfig } from "@arena/contracts";
import { DEFAULT_BACKFILL_TIMEOUT } from "@arena/contracts";
import { AppError, type Logger } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import { inTransaction, type Queryable, type SqlClient, type SqlPool } from "../db.js";
import type { MatchLifecycle } from "../matches/match-lifecycle.js";
import type { Pusher } from "../push/pusher.js";
import type { QueueStore } from "../queue/queue-store.js";
import { backfillTarget, chooseReplacement } from "./backfill-choice.js";
import {
  CURRENT_ROSTER,
  DROP_PLAYER,
  INSERT_REQUEST,
  MARK_CANCELLED,
  MARK_DELIVERED,
  OPEN_FOR_SEAT_LOCKED,
  REQUEST,
  REQUEST_LOCKED,
  REQUEUE_REPLACEMENT,
  type RequestRow,
  SEARCHING,
  SEAT,
  SEAT_REPLACEMENT,
  TAKE_FROM_QUEUE,
  TIME_OUT,
  UNSEAT_REPLACEMENT,
} from "./backfill-sql.js";

function status(r: RequestRow): BackfillStatus {
  return {
    backfillingRequestId: r.request_id,
    gameId: r.game_id,
    matchId: r.match_id,
    droppedPlayerId: r.dropped_player_id,
    state: r.state,
    replacement:
      r.replacement_id === null ? null : { playerId: r.replacement_id, reference: r.replacement_reference },
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/**
 * Backfill (the README's "Hosted queue and matches"): a running (confirmed) match asks for a
 * waiting player to take a dropped player's seat. States `searching → delivered`, or `cancelled`,
 * `timed-out`.
 *
 * - One active request per seat: a new request for the same dropped player cancels the old one
 *   (a partial unique index makes two racing requests a conflict, not two searches).
 * - The replacement is a solo waiting player who can play on the match's server, with the rating
 *   that best restores team balance; it leaves the queue and joins the dropped player's team in
 *   the roster, which is what the completion then checks.
 * - Cancelling a delivered request takes the replacement out of the roster and back into the
 *   queue with its own join time. Completing or failing the match cancels open requests.
 */
export class BackfillStore {
  constructor(
    private readonly deps: {
      pool: SqlPool;
      clock: Clock;
      queue: QueueStore;
      lifecycle: MatchLifecycle;
      pusher: Pusher;
      logger: Logger;
    },
  ) {}

  async request(tenantId: string, game: GameConfig, matchId: string, body: BackfillRequest): Promise<string> {
    const now = this.deps.clock.now();
    const requestId = body.backfillingRequestId ?? randomUUID();
    const timeout = game.backfillTimeout ?? DEFAULT_BACKFILL_TIMEOUT;
    const created = await inTransaction(this.deps.pool, async (tx) => {
      const match = await this.deps.lifecycle.matchRow(tx, tenantId, game.gameId, matchId, true);
      const existing = await this.row(tx, tenantId, requestId, true);
      if (existing) {
        if (existing.match_id === matchId && existing.dropped_player_id === body.droppedPlayerId)
          return false;
        throw new AppError("CONFLICT", `Backfill request ${requestId} exists for another seat`);
      }
      if (match.status !== "confirmed") {
        throw new AppError(
          "CONFLICT",
          `Match ${matchId} is ${match.status}; only a confirmed match can be backfilled`,
        );
      }
      const seat = await SEAT.run(tx, tenantId, matchId, body.droppedPlayerId);
      if (!seat.rows[0]) {
        throw AppError.validation([{ pointer: "/droppedPlayerId", detail: "is not a player of this match" }]);
      }
      // The seat's earlier request, if any, is replaced.
      const earlier = await OPEN_FOR_SEAT_LOCKED.run(tx, tenantId, matchId, body.droppedPlayerId);
      for (const old of earlier.rows) await this.cancelLocked(tx, tenantId, old, now);
      await DROP_PLAYER.run(tx, tenantId, matchId, body.droppedPlayerId, now);
      await INSERT_REQUEST.run(
        tx,
        tenantId,
        requestId,
        matchId,
        game.gameId,
        body.droppedPlayerId,
        seat.rows[0].team,
        now,
        timeout,
      );
      return true;
    });
    if (created) await this.search(tenantId, game.gameId);
    return requestId;
  }

  async get(tenantId: string, gameId: string, matchId: string, requestId: string): Promise<BackfillStatus> {
    const row = await this.row(this.deps.pool, tenantId, requestId, false);
    if (!row || row.match_id !== matchId || row.game_id !== gameId) throw this.notFound(requestId);
    return status(row);
  }

  async cancel(
    tenantId: string,
    gameId: string,
    matchId: string,
    requestId: string,
  ): Promise<BackfillStatus> {
    return inTransaction(this.deps.pool, async (tx) => {
      // The match first, as in every path that changes a roster.
      await this.deps.lifecycle.matchRow(tx, tenantId, gameId, matchId, true);
      const row = await this.row(tx, tenantId, requestId, true);
      if (!row || row.match_id !== matchId) throw this.notFound(requestId);
      if (row.state === "searching" || row.state === "delivered") {
        return status(await this.cancelLocked(tx, tenantId, row, this.deps.clock.now()));
      }
      return status(row);
    });
  }

  /** Requests still searching past their time limit time out. */
  async timeOut(tenantId: string, gameId: string): Promise<number> {
    const res = await TIME_OUT.run(this.deps.pool, tenantId, gameId, this.deps.clock.now());
    return res.rowCount ?? 0;
  }

  /** Looks for a replacement for each of the game's searching requests, oldest first. */
  async search(tenantId: string, gameId: string): Promise<number> {
    const open = await SEARCHING.run(this.deps.pool, tenantId, gameId, this.deps.clock.now());
    let filled = 0;
    for (const request of open.rows) {
      const suggestion = await this.fill(tenantId, request);
      if (!suggestion) continue;
      filled++;
      try {
        await this.deps.pusher.offerMany(tenantId, gameId, [
          { action: "backfillingMatchSuggestion", messageId: null, payload: suggestion },
        ]);
      } catch (err) {
        this.deps.logger.warn({ err, requestId: request.request_id }, "backfill push failed; GET shows it");
      }
    }
    return filled;
  }

  /** Chooses and seats a replacement for one request, in one transaction; undefined when none fits. */
  private async fill(
    tenantId: string,
    request: RequestRow & { server: string },
  ): Promise<BackfillSuggestion | undefined> {
    const candidates = await this.deps.queue.waiting(tenantId, request.game_id, { server: request.server });
    if (candidates.length === 0) return undefined;
    const roster = await CURRENT_ROSTER.run(this.deps.pool, tenantId, request.match_id);
    const ratings = await this.deps.queue.ratings(
      tenantId,
      request.game_id,
      roster.rows.map((r) => r.player_id),
    );
    const teams: number[][] = [];
    for (const [i, r] of roster.rows.entries()) {
      while (teams.length <= Math.max(r.team, request.team)) teams.push([]);
      teams[r.team]!.push(ratings[i]!);
    }
    while (teams.length <= request.team) teams.push([]);
    const ordered = [...candidates];
    const now = this.deps.clock.now();
    // The best candidate may have left the queue meanwhile: try the next best, a few times.
    for (let attempt = 0; attempt < 3 && ordered.length > 0; attempt++) {
      const chosen = chooseReplacement(backfillTarget(teams, request.team), ordered);
      if (!chosen) return undefined;
      ordered.splice(ordered.indexOf(chosen as (typeof ordered)[number]), 1);
      const seated = await inTransaction(this.deps.pool, async (tx) => {
        await this.deps.lifecycle.matchRow(tx, tenantId, request.game_id, request.match_id, true);
        const still = await this.row(tx, tenantId, request.request_id, true);
        if (still?.state !== "searching") return "closed" as const;
        const player = (await TAKE_FROM_QUEUE.run(tx, tenantId, chosen.playerId)).rows[0];
        if (!player) return "gone" as const;
        await SEAT_REPLACEMENT.run(
          tx,
          tenantId,
          request.match_id,
          chosen.playerId,
          request.team,
          player.reference,
          player.joined_at,
          player.servers,
        );
        await MARK_DELIVERED.run(tx, tenantId, request.request_id, chosen.playerId, player.reference, now);
        return { playerId: chosen.playerId, reference: player.reference };
      });
      if (seated === "closed") return undefined;
      if (seated === "gone") continue;
      return {
        backfillingRequestId: request.request_id,
        gameId: request.game_id,
        matchId: request.match_id,
        droppedPlayerId: request.dropped_player_id,
        server: request.server,
        replacement: seated,
      };
    }
    return undefined;
  }

  /** Cancels a locked open request; a delivered replacement goes back to the queue. */
  private async cancelLocked(
    tx: SqlClient,
    tenantId: string,
    row: RequestRow,
    now: Date,
  ): Promise<RequestRow> {
    if (row.state === "delivered" && row.replacement_id !== null) {
      await REQUEUE_REPLACEMENT.run(tx, tenantId, row.match_id, row.game_id, now, row.replacement_id);
      await UNSEAT_REPLACEMENT.run(tx, tenantId, row.match_id, row.replacement_id);
    }
    const res = await MARK_CANCELLED.run(tx, tenantId, row.request_id, now);
    return res.rows[0]!;
  }

  private async row(
    tx: Queryable,
    tenantId: string,
    requestId: string,
    lock: boolean,
  ): Promise<RequestRow | undefined> {
    const res = await (lock ? REQUEST_LOCKED : REQUEST).run(tx, tenantId, requestId);
    return res.rows[0];
  }

  private notFound(requestId: string) {
    return new AppError("NOT_FOUND", `Backfill request ${requestId} of this match does not exist`);
  }
}
