import type { Redis, RedisKeys } from "@arena/redis";
import type { Clock } from "@arena/service-kit";
import type { GatewayConfig } from "../config.js";
import type { Database } from "../db.js";
import type { IdentityPart } from "../identity/identity-part.js";
import { Authenticator } from "./authentication.js";
import { TenantLimits, tenantLimitDefaults } from "./tenant-limits.js";
import { tenantRateLimit } from "./tenant-rate-limit.js";

export interface AccessPartDeps {
  db: Database;
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
  /** Each tenant's limits: its own where an operator set them, else the config's defaults. */
  tenantLimits: TenantLimits;
  /** On shutdown: adds the requests counted here to Redis. */
  close(): Promise<void>;
}

/** Who may call: tokens checked against users and app clients, and each tenant's request budget. */
export function accessPart({ db, identity, redis, keys, clock, config }: AccessPartDeps): AccessPart {
  const authenticator = new Authenticator({
    tokens: identity.tokens,
    identity: identity.store,
    clock,
    userStatusCacheMs: config.USER_STATUS_CACHE_MS,
  });
  const tenantLimits = new TenantLimits({
    db,
    clock,
    defaults: tenantLimitDefaults(config),
    cacheMs: config.TENANT_LIMITS_CACHE_MS,
  });
  const rateLimit = tenantRateLimit({
    redis,
    keys,
    clock,
    points: config.TENANT_RATE_LIMIT,
    windowSeconds: config.TENANT_RATE_WINDOW_SECONDS,
    limitsOf: (tenantId) => tenantLimits.inForce(tenantId),
  });
  return { authenticator, rateLimit, tenantLimits, close: () => rateLimit.close() };
}
