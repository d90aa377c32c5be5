import type { LeaderboardVariant } from "@arena/contracts";
import { Counter, Gauge, Histogram } from "@arena/service-kit";
import type { LeaderboardMetrics } from "./leaderboard-store.js";

/** The leaderboards' metrics (registered by the app with its registry). */
export function leaderboardMetrics() {
  const reads = new Counter({
    name: "stats_leaderboard_reads_total",
    help: "Leaderboard reads by variant",
    labelNames: ["variant"] as const,
    registers: [],
  });
  const rebuilds = new Counter({
    name: "stats_leaderboard_rebuilds_total",
    help: "Leaderboards rebuilt from PostgreSQL",
    registers: [],
  });
  const rebuildSeconds = new Histogram({
    name: "stats_leaderboard_rebuild_seconds",
    help: "Time to rebuild one leaderboard from PostgreSQL",
    buckets: [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 20, 40],
    registers: [],
  });
  const outboxDepth = new Gauge({
    name: "stats_leaderboard_outbox_depth",
    help: "Leaderboard writes committed in PostgreSQL and not yet confirmed in Redis",
    registers: [],
  });
  const store: LeaderboardMetrics = {
    rebuilt(seconds) {
      rebuilds.inc();
      rebuildSeconds.observe(seconds);
    },
  };
  return {
    all: [reads, rebuilds, rebuildSeconds, outboxDepth],
    store,
    reads: reads as { inc(labels: { variant: LeaderboardVariant }): void },
    outboxDepth,
  };
}
