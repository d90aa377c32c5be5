import { EDITIONS } from "@arena/contracts";
import type { LicenseClient } from "@arena/license-client";
import { Counter, Gauge, Histogram, type ServiceMetrics } from "@arena/service-kit";

const LICENSE_STATUSES = ["pending", "valid", "grace", "expired", "invalid"] as const;

/** What the matchmaker did, beside the kit's HTTP metrics; names follow Prometheus conventions. */
export interface MatchmakingMetrics {
  ticketsPerRequest: Histogram;
  matchesReturned: Counter;
  unmatchedTicketsReturned: Counter;
  findMatchesSeconds: Histogram;
  requestSeconds: Histogram;
  refused: Counter<"reason">;
}

export function createMatchmakingMetrics(
  metrics: ServiceMetrics,
  license: Pick<LicenseClient, "state">,
): MatchmakingMetrics {
  const registers = [metrics.registry];
  const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  // The license is read when Prometheus scrapes, so the gauges never lag behind a refresh.
  new Gauge({
    name: "matchmaker_license_status",
    help: "1 for the license's current status (pending, valid, grace, expired, invalid), 0 for the others",
    labelNames: ["status"] as const,
    registers,
    collect() {
      const current = license.state().status;
      for (const status of LICENSE_STATUSES) this.set({ status }, status === current ? 1 : 0);
    },
  });
  new Gauge({
    name: "matchmaker_license_edition",
    help: "1 for the edition the license grants now (community, advanced), 0 for the others and while it grants none",
    labelNames: ["edition"] as const,
    registers,
    collect() {
      const current = license.state().edition;
      for (const edition of EDITIONS) this.set({ edition }, edition === current ? 1 : 0);
    },
  });
  return {
    ticketsPerRequest: new Histogram({
      name: "matchmaker_request_tickets",
      help: "Tickets per accepted matchmaking request",
      buckets: [10, 100, 1_000, 10_000, 50_000, 100_000, 200_000],
      registers,
    }),
    matchesReturned: new Counter({
      name: "matchmaker_matches_returned_total",
      help: "Match suggestions returned",
      registers,
    }),
    unmatchedTicketsReturned: new Counter({
      name: "matchmaker_unmatched_tickets_returned_total",
      help: "Tickets returned unmatched",
      registers,
    }),
    findMatchesSeconds: new Histogram({
      name: "matchmaker_find_matches_duration_seconds",
      help: "Time in the matching algorithm (findMatches) per accepted request",
      buckets: seconds,
      registers,
    }),
    requestSeconds: new Histogram({
      name: "matchmaker_request_duration_seconds",
      help: "Time in the matchmaking handler per accepted request: validation, matching and the answer",
      buckets: seconds,
      registers,
    }),
    refused: new Counter({
      name: "matchmaker_requests_refused_total",
      help: "Matchmaking requests refused, by problem code (validation_failed, too_many_tickets, license_invalid, ...)",
      labelNames: ["reason"] as const,
      registers,
    }),
  };
}
