import { randomUUID } from "node:crypto";
import type { GameConfig, MatchmakingRequest, MatchmakingResponse } from "@arena/contracts";
import { isDependencyUnreachable, type Logger } from "@arena/service-kit";
import type { BackfillStore } from "../backfill/backfill-store.js";
import type { Clock } from "../clock.js";
import type { GameStore } from "../games/game-store.js";
import type { MatchLifecycle } from "../matches/match-lifecycle.js";
import type { Pusher } from "../push/pusher.js";
import { matchmakingRequest } from "../queue/queue-rules.js";
import type { QueueStore } from "../queue/queue-store.js";
import type { GameLocks } from "./game-lock.js";

export interface LoopMetrics {
  tick(gameId: string, seconds: number, outcome: "ok" | "failed"): void;
  step(gameId: string, step: TickStep, seconds: number): void;
  expired(gameId: string, count: number): void;
  /** How long each player of the stored suggestions waited, from joining the queue. */
  suggested(gameId: string, waitsSeconds: readonly number[]): void;
}

/** The steps of a tick, timed one by one (`stats_matchmaking_tick_step_seconds`). */
export type TickStep = "expire" | "timeOut" | "backfill" | "waiting" | "matchmaker" | "store" | "reoffer";

export interface MatchmakingLoopDeps {
  games: GameStore;
  queue: QueueStore;
  lifecycle: MatchLifecycle;
  backfill: BackfillStore;
  locks: GameLocks;
  matchmaker: { match(request: MatchmakingRequest, requestId: string): Promise<MatchmakingResponse> };
  pusher: Pusher;
  clock: Clock;
  logger: Logger;
  metrics?: LoopMetrics;
  /** Games processed at once by one replica. */
  concurrency?: number;
}

/**
 * The hosted queue's background loop. Every interval, for each game with waiting
 * players, open suggestions or open backfill requests, under that game's Redis lock:
 *
 * 1. players who waited past `maxQueueSeconds` leave the queue (`expired`, pushed to subscribers);
 * 2. suggestions unconfirmed past `confirmationTimeout` fail and requeue their players;
 * 3. backfill requests time out, or find their replacement;
 * 4. the waiting players, with their ratings in this game, go to the matchmaker; its suggestions
 *    are stored in one transaction and offered to the game's WebSocket subscribers;
 * 5. suggestions nobody took yet are offered again (a subscriber may have arrived).
 *
 * Each step is its own transaction, so a process killed mid-tick leaves every player either
 * waiting or in exactly one stored match.
 */
export class MatchmakingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly deps: MatchmakingLoopDeps) {}

  /**
   * Rounds start every `intervalMs`, start to start: a round that took part of the interval is
   * followed by the next one when the interval ends, one that overran it by the next at once
   * (never two rounds of one replica at a time).
   */
  start(intervalMs: number): void {
    this.stopped = false;
    const schedule = (delayMs: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(async () => {
        const started = performance.now();
        this.running = this.runOnce().catch((err) =>
          isDependencyUnreachable(err)
            ? this.deps.logger.warn(
                { reason: (err as Error).message },
                "matchmaking round skipped: PostgreSQL is unreachable",
              )
            : this.deps.logger.error({ err }, "matchmaking round failed"),
        );
        await this.running;
        schedule(Math.max(0, intervalMs - (performance.now() - started)));
      }, delayMs);
      this.timer.unref();
    };
    schedule(intervalMs);
  }

  /** Stops scheduling and waits for a round in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One round over every active game; answers the games this replica processed. */
  async runOnce(): Promise<number> {
    const games = await this.deps.queue.activeGames();
    const concurrency = this.deps.concurrency ?? 4;
    let next = 0;
    let processed = 0;
    const worker = async () => {
      while (next < games.length && !this.stopped) {
        const { tenantId, gameId } = games[next++]!;
        if (await this.processGame(tenantId, gameId)) processed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, games.length) }, worker));
    return processed;
  }

  /** One game's tick under its lock; false when another replica holds it. */
  async processGame(tenantId: string, gameId: string): Promise<boolean> {
    const { locks, logger } = this.deps;
    let locked = false;
    try {
      locked = await locks.acquire(tenantId, gameId);
    } catch (err) {
      logger.warn({ err, tenantId, gameId }, "matchmaking lock unavailable (Redis); game skipped this round");
      return false;
    }
    if (!locked) return false;
    const started = process.hrtime.bigint();
    try {
      await this.tick(tenantId, gameId);
      this.deps.metrics?.tick(gameId, Number(process.hrtime.bigint() - started) / 1e9, "ok");
    } catch (err) {
      this.deps.metrics?.tick(gameId, Number(process.hrtime.bigint() - started) / 1e9, "failed");
      // PostgreSQL or the matchmaker out of reach is an outage /readyz already reports: one line
      // per round, not a stack trace per game every interval.
      if (isDependencyUnreachable(err))
        logger.warn(
          { tenantId, gameId, reason: (err as Error).message },
          "matchmaking tick skipped: a dependency is unreachable",
        );
      else logger.error({ err, tenantId, gameId }, "matchmaking tick failed; the game is retried next round");
    } finally {
      await locks.release(tenantId, gameId).catch(() => {});
    }
    return true;
  }

  private async tick(tenantId: string, gameId: string): Promise<void> {
    const { games, queue, lifecycle, backfill, pusher } = this.deps;
    const game = await games.get(tenantId, gameId);
    if (!game) return;
    const step = this.stepTimer(gameId);
    const expired = await step("expire", () => queue.expire(tenantId, game));
    if (expired.length > 0) {
      this.deps.metrics?.expired(gameId, expired.length);
      await pusher
        .broadcast(tenantId, gameId, {
          action: "playersRemoved",
          messageId: null,
          payload: { gameId, reason: "expired", players: expired },
        })
        .catch((err) => this.deps.logger.warn({ err }, "expired-players push failed"));
    }
    await step("timeOut", () => lifecycle.timeOut(tenantId, gameId));
    await step("backfill", async () => {
      await backfill.timeOut(tenantId, gameId);
      await backfill.search(tenantId, gameId);
    });
    await this.matchWaiting(tenantId, game, step);
    await step("reoffer", () => lifecycle.offerUndelivered(tenantId, gameId));
    // A long round must not outlive its lease unnoticed.
    await this.deps.locks.extend(tenantId, gameId).catch(() => false);
  }

  private async matchWaiting(tenantId: string, game: GameConfig, step: StepTimer): Promise<void> {
    const waiting = await step("waiting", () => this.deps.queue.waiting(tenantId, game.gameId));
    const now = this.deps.clock.now();
    if (waiting.length < game.numTeams * game.numPlayersPerTeam) return;
    const answer = await step("matchmaker", () =>
      this.deps.matchmaker.match(matchmakingRequest(game, waiting, now), `mm-${randomUUID()}`),
    );
    const stored = await step("store", () =>
      this.deps.lifecycle.storeSuggestions(
        tenantId,
        game.gameId,
        answer.matchSuggestions,
        game.confirmationTimeout,
      ),
    );
    if (this.deps.metrics && stored.length > 0) {
      const joinedAt = new Map(waiting.map((p) => [p.playerId, p.joinedAt.getTime()]));
      const storedAt = this.deps.clock.now().getTime();
      const waits = stored.flatMap((m) =>
        m.teams.flatMap((t) =>
          t.players.map((p) => (storedAt - (joinedAt.get(p.playerId) ?? storedAt)) / 1000),
        ),
      );
      this.deps.metrics.suggested(game.gameId, waits);
    }
  }

  /** Runs one step of a game's tick and reports its time (failed steps too). */
  private stepTimer(gameId: string): StepTimer {
    return async (step, run) => {
      const started = performance.now();
      try {
        return await run();
      } finally {
        this.deps.metrics?.step(gameId, step, (performance.now() - started) / 1000);
      }
    };
  }
}

type StepTimer = <T>(step: TickStep, run: () => Promise<T>) => Promise<T>;
