import { Counter, Gauge, Histogram } from "@arena/service-kit";
import type { CompletionMetrics } from "./match-completion.js";
import type { LifecycleMetrics } from "./match-lifecycle.js";

/**
 * The match lifecycle's and the completions' metrics (registered by the app with its registry).
 * `waiting` reads the completions queued for a transaction when the registry is scraped.
 */
export function matchMetrics(waiting: () => number) {
  const completions = new Counter({
    name: "stats_match_completions_total",
    help: "Match completions by result (completed, or replayed: the stored answer again)",
    labelNames: ["result"] as const,
    registers: [],
  });
  const completionSeconds = new Histogram({
    name: "stats_match_completion_seconds",
    help: "Time to complete a match: transaction and leaderboard write",
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [],
  });
  const completionBatch = new Histogram({
    name: "stats_match_completion_batch_size",
    help: "Completions per PostgreSQL transaction (completions that arrive together share one)",
    buckets: [1, 2, 4, 8, 16, 32],
    registers: [],
  });
  const confirmBatch = new Histogram({
    name: "stats_match_confirmation_batch_size",
    help: "Confirmations per PostgreSQL statement (confirmations that arrive together share one)",
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [],
  });
  const completionsWaiting = new Gauge({
    name: "stats_match_completions_waiting",
    help: "Match completions waiting for a transaction (COMPLETION_TRANSACTIONS are all running)",
    registers: [],
    collect() {
      this.set(waiting());
    },
  });
  const perGame = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ["game"] as const, registers: [] });
  const formed = perGame(
    "stats_matches_formed_total",
    "Match suggestions stored by the matchmaking loop, per game",
  );
  const dropped = perGame(
    "stats_suggestions_dropped_total",
    "Suggestions dropped because a player left the queue while the matchmaker worked",
  );
  const timedOut = perGame(
    "stats_matches_timed_out_total",
    "Suggestions failed for want of a confirmation in time (players requeued)",
  );
  const pushes = new Counter({
    name: "stats_match_pushes_total",
    help: "Match suggestions offered to WebSocket subscribers, by outcome",
    labelNames: ["outcome"] as const,
    registers: [],
  });
  const completion: CompletionMetrics = {
    completed(result, seconds) {
      completions.inc({ result });
      completionSeconds.observe(seconds);
    },
    batch: (size) => completionBatch.observe(size),
  };
  const lifecycle: LifecycleMetrics = {
    matchesFormed: (game, n) => formed.inc({ game }, n),
    suggestionsDropped: (game, n) => dropped.inc({ game }, n),
    timedOut: (game, n) => timedOut.inc({ game }, n),
    pushed: (outcome, count) => pushes.inc({ outcome }, count),
    confirmBatch: (size) => confirmBatch.observe(size),
  };
  return {
    all: [
      completions,
      completionSeconds,
      completionBatch,
      confirmBatch,
      completionsWaiting,
      formed,
      dropped,
      timedOut,
      pushes,
    ],
    completion,
    lifecycle,
  };
}
