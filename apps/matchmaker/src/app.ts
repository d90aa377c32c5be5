import { type LicenseClient, licenseReadinessCheck } from "@arena/license-client";
import { type Clock, createServiceApp, type Logger, type ServiceApp, systemClock } from "@arena/service-kit";
import { rawJsonBody } from "./answer/raw-json-body.js";
import { createInlineSpanScanner, type SpanScanner } from "./answer/span-scanner.js";
import type { MatchmakerConfig } from "./config.js";
import { createMatchmakingMetrics } from "./http/matchmaking-metrics.js";
import { MatchmakingPipeline } from "./http/matchmaking-pipeline.js";
import { mountMatchmakingRoutes } from "./http/matchmaking-routes.js";
import { startWarmUp, type WarmUp, type WarmUpSize } from "./warm-up.js";

export interface MatchmakerDeps {
  config: Pick<
    MatchmakerConfig,
    "MAX_BODY_BYTES" | "MAX_TICKETS" | "MAX_MATCH_PLAYERS" | "CLOCK_SKEW_SECONDS"
  > &
    Partial<Pick<MatchmakerConfig, "TRUST_PROXY">>;
  license: LicenseClient;
  logger: Logger;
  /** The time matches are scored at when a request carries no `now`; the system clock by default. */
  clock?: Clock;
  /** Where answers find their tickets' text; inline unless given (main.ts uses a worker thread). */
  spanScanner?: SpanScanner;
  /**
   * Run synthetic queues through the pipeline before /readyz turns 200, at this size (`{}` is the
   * production size): main.ts does unless `WARM_UP_TICKETS` is 0; a test may pass a smaller one.
   */
  warmUp?: WarmUpSize;
}

export interface MatchmakerApp extends ServiceApp {
  /** The start-up warm-up, when asked for. */
  warmUp?: WarmUp;
}

export function createApp(deps: MatchmakerDeps): MatchmakerApp {
  const pipeline = new MatchmakingPipeline({
    limits: {
      maxTickets: deps.config.MAX_TICKETS,
      maxMatchPlayers: deps.config.MAX_MATCH_PLAYERS,
      clockSkewSeconds: deps.config.CLOCK_SKEW_SECONDS,
    },
    clock: deps.clock ?? systemClock,
    spanScanner: deps.spanScanner ?? createInlineSpanScanner(),
  });
  let warmUp: WarmUp | undefined;
  const service = createServiceApp({
    name: "matchmaker",
    logger: deps.logger,
    bodyLimit: deps.config.MAX_BODY_BYTES,
    bodyParser: rawJsonBody,
    trustProxy: deps.config.TRUST_PROXY ?? "none",
    readiness: [
      licenseReadinessCheck(deps.license),
      { name: "warm-up", check: () => warmUp?.readiness.check() },
    ],
    routes(app, kit) {
      mountMatchmakingRoutes(app, {
        metrics: createMatchmakingMetrics(kit.metrics, deps.license),
        license: deps.license,
        pipeline,
        isWarmUpRequest: (req) => warmUp?.isWarmUpRequest(req) ?? false,
      });
    },
  });
  if (!deps.warmUp) return service;
  warmUp = startWarmUp(
    service.app,
    (err) => deps.logger.warn({ err }, "a warm-up request failed"),
    deps.warmUp,
  );
  return { ...service, warmUp };
}
