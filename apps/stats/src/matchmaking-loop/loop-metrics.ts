import { Counter, Histogram } from "@arena/service-kit";
import type { LoopMetrics } from "./matchmaking-loop.js";

/**
 * The matchmaking loop's metrics (registered by the app with its registry). The queue's own gauges
 * are read from PostgreSQL at each scrape (`queue/queue-metrics.ts`), not set by ticks.
 */
export function loopMetrics() {
  const tickSeconds = new Histogram({
    name: "stats_matchmaking_tick_seconds",
    help: "Time of one game's matchmaking tick, by outcome",
    labelNames: ["game", "outcome"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [],
  });
  const tickStepSeconds = new Histogram({
    name: "stats_matchmaking_tick_step_seconds",
    help: "Time of each step of a game's matchmaking tick (where a slow tick spends it)",
    labelNames: ["game", "step"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [],
  });
  const playersExpired = new Counter({
    name: "stats_players_expired_total",
    help: "Players removed from the queue after maxQueueSeconds (reason expired)",
    labelNames: ["game"] as const,
    registers: [],
  });
  const waitToSuggestion = new Histogram({
    name: "stats_queue_wait_to_suggestion_seconds",
    help: "Time from a player joining the queue to its place in a stored match suggestion (a requeued player keeps its join time)",
    labelNames: ["game"] as const,
    buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
    registers: [],
  });
  const loop: LoopMetrics = {
    tick: (game, seconds, outcome) => tickSeconds.observe({ game, outcome }, seconds),
    step: (game, step, seconds) => tickStepSeconds.observe({ game, step }, seconds),
    expired: (game, n) => playersExpired.inc({ game }, n),
    suggested(game, waits) {
      for (const seconds of waits) waitToSuggestion.observe({ game }, seconds);
    },
  };
  return { all: [tickSeconds, tickStepSeconds, playersExpired, waitToSuggestion], loop };
}
