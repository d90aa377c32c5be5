import { type Clock, Gauge, type Logger } from "@arena/service-kit";
import type { GameQueueLength } from "./queue-store.js";

/**
 * At most this many games get queue series per scrape: those whose oldest player has waited
 * longest, the ones an alert is about. It bounds a scrape's query and its label cardinality.
 */
export const MAX_QUEUE_SERIES = 1_000;
/** A scrape must answer even when PostgreSQL does not: the gauges are then left out. */
const READ_TIMEOUT_MS = 2_000;

export interface QueueMetricsDeps {
  queue: { waitingByGame(limit: number): Promise<GameQueueLength[]> };
  clock: Clock;
  logger: Logger;
}

/**
 * The hosted queue's gauges, read from PostgreSQL at each scrape: a game has series while players
 * wait in it and none once its queue is empty, whichever replica ran its ticks, and every replica
 * reports the same values (take `max by (tenant, game)` across instances). Set by the loop's ticks
 * instead, they kept a game's last value for as long as no tick ran for it, i.e. for ever once its
 * queue emptied.
 */
export function queueMetrics(deps: QueueMetricsDeps) {
  const read = sharedRead(deps);
  const waitingPlayers = new Gauge({
    name: "stats_queue_waiting_players",
    help: "Players waiting in the game's queue now (games with an empty queue have no series)",
    labelNames: ["tenant", "game"] as const,
    registers: [],
    async collect() {
      const games = await read();
      this.reset();
      for (const g of games) this.set({ tenant: g.tenantId, game: g.gameId }, g.waiting);
    },
  });
  const oldestWait = new Gauge({
    name: "stats_queue_oldest_wait_seconds",
    help: "How long the game's longest-waiting player has waited now (games with an empty queue have no series)",
    labelNames: ["tenant", "game"] as const,
    registers: [],
    async collect() {
      const games = await read();
      const now = deps.clock.now().getTime();
      this.reset();
      for (const g of games) {
        const seconds = Math.max(0, (now - g.oldestJoinedAt.getTime()) / 1000);
        this.set({ tenant: g.tenantId, game: g.gameId }, seconds);
      }
    },
  });
  return { all: [waitingPlayers, oldestWait] };
}

/**
 * One query per scrape for both gauges: a scrape collects them at once, so the second joins the
 * read the first started. A failed or slow read answers no games (and says why in the log).
 */
function sharedRead({ queue, logger }: QueueMetricsDeps): () => Promise<GameQueueLength[]> {
  let inFlight: Promise<GameQueueLength[]> | undefined;
  const readOnce = async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        queue.waitingByGame(MAX_QUEUE_SERIES),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`timed out after ${READ_TIMEOUT_MS} ms`)),
            READ_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (err) {
      logger.warn(
        { reason: (err as Error).message },
        "queue gauges left out of this scrape: PostgreSQL did not answer",
      );
      return [];
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    inFlight ??= readOnce().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
