import { type LicenseClient, licenseReadinessCheck } from "@arena/license-client";
import { createServiceApp, type Logger, type ServiceApp } from "@arena/service-kit";
import { rawJsonBody } from "./answer/raw-json-body.js";
import { createInlineSpanScanner, type SpanScanner } from "./answer/span-scanner.js";
import type { MatchmakerConfig } from "./config.js";
import { createMatchmakingMetrics } from "./http/matchmaking-metrics.js";
import { mountMatchmakingRoutes } from "./http/matchmaking-routes.js";

export interface MatchmakerDeps {
  config: Pick<
    MatchmakerConfig,
    "MAX_BODY_BYTES" | "MAX_TICKETS" | "MAX_MATCH_PLAYERS" | "CLOCK_SKEW_SECONDS"
  > &
    Partial<Pick<MatchmakerConfig, "TRUST_PROXY">>;
  license: LicenseClient;
  logger: Logger;
  /** Unix seconds; defaults to the system clock. */
  clock?: () => number;
  /** Where answers find their tickets' text; inline unless given (main.ts uses a worker thread). */
  spanScanner?: SpanScanner;
}

export function createApp(deps: MatchmakerDeps): ServiceApp {
  return createServiceApp({
    name: "matchmaker",
    logger: deps.logger,
    bodyLimit: deps.config.MAX_BODY_BYTES,
    bodyParser: rawJsonBody,
    trustProxy: deps.config.TRUST_PROXY ?? "none",
    readiness: [licenseReadinessCheck(deps.license)],
    routes(app, kit) {
      mountMatchmakingRoutes(app, {
        metrics: createMatchmakingMetrics(kit.metrics, deps.license),
        license: deps.license,
        limits: {
          maxTickets: deps.config.MAX_TICKETS,
          maxMatchPlayers: deps.config.MAX_MATCH_PLAYERS,
          clockSkewSeconds: deps.config.CLOCK_SKEW_SECONDS,
        },
        clock: deps.clock ?? (() => Date.now() / 1000),
        spanScanner: deps.spanScanner ?? createInlineSpanScanner(),
      });
    },
  });
}
