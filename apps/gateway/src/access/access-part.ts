import type { Redis, RedisKeys } from "@arena/redis";
import type { Clock } from "@arena/service-kit";
import type { GatewayConfig } from "../config.js";
import type { IdentityPart } from "../identity/identity-part.js";
import { Authenticator } from "./authentication.js";
import { tenantRateLimit } from "./tenant-rate-limit.js";

export interface AccessPartDeps {
  identity: IdentityPart;
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  config: GatewayConfig;
}

export interface AccessPart {
  /** The token check of REST routes and of the WebSocket upgrade. */
  authenticator: Authenticator;
  /** The tenant's request budget, counted alike for REST requests and WebSocket messages. */
  rateLimit: ReturnType<typeof tenantRateLimit>;
  /** On shutdown: adds the requests counted here to Redis. */
  close(): Promise<void>;
}

/** Who may call: tokens checked against users and app clients, and each tenant's request budget. */
export function accessPart({ identity, redis, keys, clock, config }: AccessPartDeps): AccessPart {
  const authenticator = new Authenticator({
    tokens: identity.tokens,
    identity: identity.store,
    clock,
    userStatusCacheMs: config.USER_STATUS_CACHE_MS,
  });
  const rateLimit = tenantRateLimit({
    redis,
    keys,
    clock,
    points: config.TENANT_RATE_LIMIT,
    windowSeconds: config.TENANT_RATE_WINDOW_SECONDS,
  });
  return { authenticator, rateLimit, close: () => rateLimit.close() };
}
