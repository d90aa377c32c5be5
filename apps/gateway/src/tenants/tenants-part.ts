import type { Redis, RedisKeys } from "@arena/redis";
import type { Logger } from "@arena/service-kit";
import type { Express } from "express";
import type { AccessPart } from "../access/access-part.js";
import type { GatewayConfig } from "../config.js";
import type { IdentityPart } from "../identity/identity-part.js";
import { announceUserStatusChange } from "../websocket/user-status-notices.js";
import { adminRoutes } from "./admin-routes.js";
import { adminTokenGuard } from "./admin-token-guard.js";
import { TenantAdmin } from "./tenant-admin.js";

export interface TenantsPartDeps {
  identity: IdentityPart;
  access: AccessPart;
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  config: GatewayConfig;
}

export interface TenantsPart {
  admin: TenantAdmin;
  /**
   * `/admin`: tenants, app clients, users and key rotation behind ADMIN_TOKEN, on the public app or,
   * with ADMIN_ON_INTERNAL_PORT, on the internal one.
   */
  mount(app: Express): void;
}

/** The operator's API over tenants, app clients and users. */
export function tenantsPart({ identity, access, redis, keys, logger, config }: TenantsPartDeps): TenantsPart {
  // A user disabled here is refused at once here, and every replica hears of it (its WebSockets close).
  const admin = new TenantAdmin(
    identity.store,
    identity.passwordCost,
    access.tenantLimits,
    identity.throttle,
    (userId) => {
      access.authenticator.forgetUser(userId);
      announceUserStatusChange(redis, keys, logger, userId);
    },
  );
  const tokenGuard = adminTokenGuard({
    adminToken: config.ADMIN_TOKEN,
    redis,
    keys,
    failuresPerAddress: config.ADMIN_TOKEN_FAILURES_PER_ADDRESS,
    windowSeconds: config.ADMIN_TOKEN_FAILURE_WINDOW_SECONDS,
  });
  return {
    admin,
    mount: (app) => {
      app.use("/admin", adminRoutes({ tokenGuard, admin, signingKeys: identity.signingKeys }));
    },
  };
}
