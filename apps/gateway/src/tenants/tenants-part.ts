import type { Redis, RedisKeys } from "@arena/redis";
import type { Logger } from "@arena/service-kit";
import type { Express } from "express";
import type { AccessPart } from "../access/access-part.js";
import type { GatewayConfig } from "../config.js";
import type { IdentityPart } from "../identity/identity-part.js";
import { announceUserStatusChange } from "../websocket/user-status-notices.js";
import { adminRoutes } from "./admin-routes.js";
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
  /** `/admin`: tenants, app clients, users and key rotation behind ADMIN_TOKEN. */
  mount(app: Express): void;
}

/** The operator's API over tenants, app clients and users. */
export function tenantsPart({ identity, access, redis, keys, logger, config }: TenantsPartDeps): TenantsPart {
  // A user disabled here is refused at once here, and every replica hears of it (its WebSockets close).
  const admin = new TenantAdmin(identity.store, identity.passwordCost, access.tenantLimits, (userId) => {
    access.authenticator.forgetUser(userId);
    announceUserStatusChange(redis, keys, logger, userId);
  });
  return {
    admin,
    mount: (app) => {
      app.use(
        "/admin",
        adminRoutes({ adminToken: config.ADMIN_TOKEN, admin, signingKeys: identity.signingKeys }),
      );
    },
  };
}
