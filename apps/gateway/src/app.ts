import { IDENTITY_SECRET_FIELDS } from "@arena/contracts";
import { type Redis, redisKeys, redisReadiness } from "@arena/redis";
import {
  createInternalApp,
  createServiceApp,
  type Logger,
  PUBLIC_HEALTH_BESIDE_INTERNAL_APP,
  type ServiceApp,
} from "@arena/service-kit";
import type { SigningKeys } from "@arena/signing-keys";
import type { Express } from "express";
import { accessPart } from "./access/access-part.js";
import type { Authenticator } from "./access/authentication.js";
import type { Clock } from "./clock.js";
import type { GatewayConfig } from "./config.js";
import { type Database, databaseReadiness } from "./db.js";
import { AMZ_JSON } from "./identity/cognito-errors.js";
import { identityPart } from "./identity/identity-part.js";
import type { IdentityStore } from "./identity/identity-store.js";
import type { TokenService } from "./identity/tokens.js";
import { openApiPart } from "./openapi/openapi-part.js";
import { forwardingBodyParser } from "./routing/forwarded-body.js";
import { routingPart } from "./routing/routing-part.js";
import type { TenantAdmin } from "./tenants/tenant-admin.js";
import { tenantsPart } from "./tenants/tenants-part.js";
import type { WebSocketGateway } from "./websocket/websocket-gateway.js";
import { websocketPart } from "./websocket/websocket-part.js";

export interface GatewayAppDeps {
  db: Database;
  redis: Redis;
  clock: Clock;
  config: GatewayConfig;
  logger: Logger;
}

export interface GatewayApp extends ServiceApp {
  identity: IdentityStore;
  admin: TenantAdmin;
  signingKeys: SigningKeys;
  tokens: TokenService;
  authenticator: Authenticator;
  /**
   * /metrics and the detailed /readyz when METRICS_PORT moves them off the public port, and the
   * admin API too with ADMIN_ON_INTERNAL_PORT.
   */
  internalApp: Express | undefined;
  /** The WebSocket API: the HTTP server's `upgrade` handler, drained on shutdown. */
  websocket: WebSocketGateway;
  /** After the last request: stops the WebSocket timers and listeners, closes the connections to stats. */
  close(): Promise<void>;
}

/** The log's redaction list: every credential field of the identity wire shapes, at any depth. */
export const GATEWAY_REDACTED_KEYS = IDENTITY_SECRET_FIELDS;

/** The gateway: each domain builds its parts in its own folder; this wires them in order. */
export function createApp(deps: GatewayAppDeps): GatewayApp {
  const { db, redis, config, logger } = deps;
  const keys = redisKeys(config.REDIS_KEY_PREFIX);
  const identity = identityPart({ ...deps, keys });
  const access = accessPart({ ...deps, keys, identity });
  const routing = routingPart({ config, access, clock: deps.clock });
  const tenants = tenantsPart({ ...deps, keys, identity, access });
  const openApi = openApiPart();
  const readiness = [databaseReadiness(db), redisReadiness(redis), routing.readiness];
  const internalPort = config.METRICS_PORT !== undefined;
  const service = createServiceApp({
    name: "gateway",
    logger,
    bodyLimit: config.BODY_LIMIT,
    jsonTypes: [AMZ_JSON],
    // Hosted bodies go to stats byte for byte.
    bodyParser: forwardingBodyParser,
    readiness,
    publicHealth: internalPort ? PUBLIC_HEALTH_BESIDE_INTERNAL_APP : undefined,
    trustProxy: config.TRUST_PROXY,
    routes: (app, kit) => {
      identity.mount(app, kit);
      openApi.mount(app);
      // Before /admin: POST /admin/season/reset is a hosted operation (user tokens), not the operator's.
      routing.mount(app, kit);
      if (!config.ADMIN_ON_INTERNAL_PORT) tenants.mount(app);
    },
  });
  const websocket = websocketPart({ ...deps, keys, access, routing, service });
  return {
    ...service,
    identity: identity.store,
    admin: tenants.admin,
    signingKeys: identity.signingKeys,
    tokens: identity.tokens,
    authenticator: access.authenticator,
    internalApp: internalPort
      ? createInternalApp({
          ...service,
          readiness,
          bodyLimit: config.BODY_LIMIT,
          routes: config.ADMIN_ON_INTERNAL_PORT ? tenants.mount : undefined,
        })
      : undefined,
    websocket,
    async close() {
      await websocket.close();
      await access.close();
      await routing.close();
    },
  };
}
