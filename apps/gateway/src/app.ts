import { ID_TOKEN_LIFETIME_SECONDS, IDENTITY_SECRET_FIELDS } from "@arena/contracts";
import { PushFanout, type Redis, redisKeys, redisReadiness } from "@arena/redis";
import {
  Counter,
  createInternalApp,
  createServiceApp,
  type Logger,
  PUBLIC_HEALTH_BESIDE_INTERNAL_APP,
  type ServiceApp,
} from "@arena/service-kit";
import { jwksRoutes, SigningKeys } from "@arena/signing-keys";
import type { Express } from "express";
import { Authenticator } from "./access/authentication.js";
import { tenantRateLimit } from "./access/tenant-rate-limit.js";
import type { Clock } from "./clock.js";
import type { GatewayConfig } from "./config.js";
import { type Database, databaseReadiness } from "./db.js";
import { AMZ_JSON, cognitoErrorHandler } from "./identity/cognito-errors.js";
import { cognitoRoutes } from "./identity/cognito-routes.js";
import { IdentityStore } from "./identity/identity-store.js";
import { LoginThrottle } from "./identity/login-throttle.js";
import { GATEWAY_SEALING_SALT, gatewaySigningKeyStore } from "./identity/signing-key-store.js";
import { TokenService } from "./identity/tokens.js";
import { docsRoutes } from "./openapi/docs-routes.js";
import { openApiDocument } from "./openapi/openapi-document.js";
import { forwardingBodyParser } from "./routing/forwarded-body.js";
import { hostedRoutes } from "./routing/hosted-routes.js";
import { StatsUpstream } from "./routing/stats-proxy.js";
import { adminRoutes } from "./tenants/admin-routes.js";
import { TenantAdmin } from "./tenants/tenant-admin.js";
import { announceUserStatusChange } from "./websocket/user-status-notices.js";
import { WebSocketGateway } from "./websocket/websocket-gateway.js";
import { websocketMetrics } from "./websocket/websocket-metrics.js";

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
  /** /metrics and the detailed /readyz, when METRICS_PORT moves them off the public port. */
  internalApp: Express | undefined;
  /** The WebSocket API: the HTTP server's `upgrade` handler, drained on shutdown. */
  websocket: WebSocketGateway;
  /** After the last request: stops the WebSocket timers and listeners, closes the connections to stats. */
  close(): Promise<void>;
}

/** The log's redaction list: every credential field of the identity wire shapes, at any depth. */
export const GATEWAY_REDACTED_KEYS = IDENTITY_SECRET_FIELDS;

export function createApp(deps: GatewayAppDeps): GatewayApp {
  const { db, redis, clock, config, logger } = deps;
  const keys = redisKeys(config.REDIS_KEY_PREFIX);
  const identity = new IdentityStore(db, clock);
  const signingKeys = new SigningKeys({
    store: gatewaySigningKeyStore(db),
    clock,
    logger,
    secret: config.SIGNING_KEY_SECRET,
    sealingSalt: GATEWAY_SEALING_SALT,
    rotateAfterMs: config.SIGNING_KEY_ROTATION_DAYS * 86_400_000,
    signedTtlMs: ID_TOKEN_LIFETIME_SECONDS * 1000,
  });
  const tokens = new TokenService(signingKeys, clock, config.PUBLIC_URL);
  const authenticator = new Authenticator({
    tokens,
    identity,
    clock,
    userStatusCacheMs: config.USER_STATUS_CACHE_MS,
  });
  const passwordCost = { logN: config.PASSWORD_SCRYPT_LOG_N };
  // A user disabled here is refused at once here, and every replica hears of it (its WebSockets close).
  const admin = new TenantAdmin(identity, passwordCost, (userId) => {
    authenticator.forgetUser(userId);
    announceUserStatusChange(redis, keys, logger, userId);
  });
  const throttle = new LoginThrottle({
    redis,
    keys,
    windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    perUsername: config.LOGIN_FAILURES_PER_USERNAME,
    perAddress: config.LOGIN_FAILURES_PER_ADDRESS,
  });
  const upstream = new StatsUpstream({
    url: config.STATS_URL,
    serviceToken: config.SERVICE_TOKEN,
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    connections: config.UPSTREAM_CONNECTIONS,
  });
  const rateLimit = tenantRateLimit({
    redis,
    keys,
    clock,
    points: config.TENANT_RATE_LIMIT,
    windowSeconds: config.TENANT_RATE_WINDOW_SECONDS,
  });
  const readiness = [
    databaseReadiness(db),
    redisReadiness(redis),
    { name: "stats", check: () => upstream.check() },
  ];
  const separateInternalPort = config.METRICS_PORT !== undefined;
  // Registered with the app's registry below, once createServiceApp has made it.
  const loginOutcomes = new Counter({
    name: "gateway_logins_total",
    help: "InitiateAuth answers by outcome: success, or the Cognito error type",
    labelNames: ["outcome"] as const,
    registers: [],
  });

  const service = createServiceApp({
    name: "gateway",
    logger,
    bodyLimit: config.BODY_LIMIT,
    jsonTypes: [AMZ_JSON],
    // Hosted bodies go to stats byte for byte.
    bodyParser: forwardingBodyParser,
    readiness,
    publicHealth: separateInternalPort ? PUBLIC_HEALTH_BESIDE_INTERNAL_APP : undefined,
    trustProxy: config.TRUST_PROXY,
    routes: (app) => {
      app.use(
        "/auth",
        cognitoRoutes({
          identity,
          tokens,
          throttle,
          clock,
          passwordCost,
          refreshTokenLifetimeMs: config.REFRESH_TOKEN_DAYS * 86_400_000,
          outcomes: loginOutcomes,
        }),
      );
      app.use("/auth", cognitoErrorHandler(loginOutcomes));
      app.use(jwksRoutes(signingKeys));
      app.use(docsRoutes(openApiDocument(config.PUBLIC_URL)));
      // Before /admin: POST /admin/season/reset is a hosted operation (user tokens), not the operator's.
      app.use(hostedRoutes({ authenticator, rateLimit, upstream }));
      app.use("/admin", adminRoutes({ adminToken: config.ADMIN_TOKEN, admin, signingKeys }));
    },
  });

  service.metrics.registry.registerMetric(loginOutcomes);
  const websocket = new WebSocketGateway({
    authenticator,
    upstream,
    rateLimit,
    fanout: new PushFanout({ redis, keys }),
    redis,
    keys,
    lifecycle: service.lifecycle,
    clock,
    logger,
    metrics: websocketMetrics(service.metrics.registry),
    limits: {
      keepAliveMs: config.WS_KEEPALIVE_MS,
      maxLifetimeMs: config.WS_MAX_LIFETIME_MS,
      maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES,
      maxMessageBytes: config.WS_MAX_MESSAGE_BYTES,
      maxInFlight: config.WS_MAX_IN_FLIGHT,
      maxConnections: config.WS_MAX_CONNECTIONS,
      registrationRefreshMs: config.WS_REGISTRATION_REFRESH_MS,
      registrationTtlMs: config.WS_REGISTRATION_TTL_MS,
    },
  });
  const internalApp = separateInternalPort
    ? createInternalApp({ readiness, lifecycle: service.lifecycle, metrics: service.metrics, logger })
    : undefined;
  return {
    ...service,
    identity,
    admin,
    signingKeys,
    tokens,
    authenticator,
    internalApp,
    websocket,
    async close() {
      await websocket.close();
      await rateLimit.close();
      await upstream.close();
    },
  };
}
