import { PushFanout, type Redis, type RedisKeys } from "@arena/redis";
import type { Clock, Logger, ServiceApp } from "@arena/service-kit";
import type { AccessPart } from "../access/access-part.js";
import type { GatewayConfig } from "../config.js";
import type { RoutingPart } from "../routing/routing-part.js";
import { WebSocketGateway } from "./websocket-gateway.js";
import { websocketMetrics } from "./websocket-metrics.js";

export interface WebSocketPartDeps {
  access: AccessPart;
  routing: RoutingPart;
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  logger: Logger;
  config: GatewayConfig;
  /** The app whose lifecycle (drain) and metrics registry the WebSocket API shares. */
  service: ServiceApp;
}

/** The WebSocket API on the public port, with REST's token check, rate limit and calls to stats. */
export function websocketPart({
  access,
  routing,
  redis,
  keys,
  clock,
  logger,
  config,
  service,
}: WebSocketPartDeps) {
  return new WebSocketGateway({
    authenticator: access.authenticator,
    upstream: routing.upstream,
    rateLimit: access.rateLimit,
    // Registrations expire on the wall clock stats reads too (another process), not on the injected one.
    fanout: new PushFanout({ redis, keys }),
    redis,
    keys,
    lifecycle: service.lifecycle,
    clock,
    logger,
    metrics: websocketMetrics(service.metrics.registry),
    tenantConnectionLimit: async (tenantId) =>
      (await access.tenantLimits.inForce(tenantId)).webSocketConnections,
    limits: {
      keepAliveMs: config.WS_KEEPALIVE_MS,
      maxLifetimeMs: config.WS_MAX_LIFETIME_MS,
      maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES,
      maxMessageBytes: config.WS_MAX_MESSAGE_BYTES,
      maxInFlight: config.WS_MAX_IN_FLIGHT,
      maxMalformedInRow: config.WS_MAX_MALFORMED_MESSAGES,
      ejectedCooldownMs: config.WS_MALFORMED_COOLDOWN_MS,
      maxConnections: config.WS_MAX_CONNECTIONS,
      maxConnectionsPerUser: config.WS_MAX_CONNECTIONS_PER_USER,
      registrationRefreshMs: config.WS_REGISTRATION_REFRESH_MS,
      registrationTtlMs: config.WS_REGISTRATION_TTL_MS,
    },
  });
}
