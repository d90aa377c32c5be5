import type { ReadinessCheck, ServiceKitContext } from "@arena/service-kit";
import type { Express } from "express";
import type { AccessPart } from "../access/access-part.js";
import type { Clock } from "../clock.js";
import type { GatewayConfig } from "../config.js";
import { hostedRoutes } from "./hosted-routes.js";
import { LeaderboardCache } from "./leaderboard-cache.js";
import { StatsUpstream } from "./stats-proxy.js";

export interface RoutingPart {
  /** Calls to stats, for REST's forwarding and the WebSocket's actions. */
  upstream: StatsUpstream;
  /** The gateway is ready only when stats answers: without it, it can only log people in. */
  readiness: ReadinessCheck;
  /** Leaderboard reads kept on this replica (LEADERBOARD_CACHE_MS, LEADERBOARD_CACHE_ENTRIES). */
  leaderboardCache: LeaderboardCache;
  /** Every hosted operation of the action table, forwarded to stats. */
  mount(app: Express, kit: ServiceKitContext): void;
  /** After the last request: closes the connections to stats. */
  close(): Promise<void>;
}

/** The hosted REST API: the action table's routes and the undici pool that forwards them to stats. */
export function routingPart({
  config,
  access,
  clock,
}: {
  config: GatewayConfig;
  access: AccessPart;
  clock: Clock;
}): RoutingPart {
  const leaderboardCache = new LeaderboardCache({
    clock,
    ttlMs: config.LEADERBOARD_CACHE_MS,
    maxEntries: config.LEADERBOARD_CACHE_ENTRIES,
  });
  const upstream = new StatsUpstream({
    url: config.STATS_URL,
    serviceToken: config.SERVICE_TOKEN,
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    connections: config.UPSTREAM_CONNECTIONS,
    leaderboardCache,
    leaderboardBatchReads: config.LEADERBOARD_BATCH_READS,
  });
  return {
    upstream,
    readiness: { name: "stats", check: () => upstream.check() },
    leaderboardCache,
    mount: (app, kit) => {
      leaderboardCache.instrument(kit.metrics.registry);
      upstream.leaderboardReads.instrument(kit.metrics.registry);
      app.use(hostedRoutes({ authenticator: access.authenticator, rateLimit: access.rateLimit, upstream }));
    },
    close: () => upstream.close(),
  };
}
