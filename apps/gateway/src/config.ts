import { ID_TOKEN_LIFETIME_SECONDS, LEADERBOARD_READ_BATCH_MAX } from "@arena/contracts";
import { databaseConfigProperties } from "@arena/database";
import { redisConfigProperties } from "@arena/redis";
import {
  adminTokenConfigProperty,
  ConfigError,
  commonConfigProperties,
  loadConfig,
  portConfigProperty,
} from "@arena/service-kit";
import { SIGNING_ALGORITHMS, signingKeyConfigProperties } from "@arena/signing-keys";

export const gatewayConfigSchema = {
  type: "object",
  required: ["ADMIN_TOKEN", "SERVICE_TOKEN", "SIGNING_KEY_SECRET"],
  properties: {
    ...commonConfigProperties,
    ...portConfigProperty(8080),
    ...databaseConfigProperties("arena_gateway", 10),
    ...redisConfigProperties,
    STATS_URL: { type: "string", pattern: "^https?://", default: "http://127.0.0.1:8081" },
    ...adminTokenConfigProperty,
    SERVICE_TOKEN: { type: "string", minLength: 16, description: "Authenticates the gateway to stats" },
    ...signingKeyConfigProperties("token"),
    TOKEN_SIGNING_ALGORITHM: {
      type: "string",
      enum: SIGNING_ALGORITHMS,
      default: "RS256",
      description:
        "What new token signing keys sign with: RS256 (RSA 2048, as Cognito; every JWT verifier accepts it) or EdDSA (Ed25519). A change rotates at the next login; keys of the other algorithm stay published until their tokens expire",
    },
    PUBLIC_URL: {
      type: "string",
      pattern: "^https?://",
      default: "http://localhost:8080",
      description: "The gateway's public address: the `iss` of its tokens",
    },
    USER_POOL_REGION: {
      type: "string",
      pattern: "^[a-z]{2}(-[a-z]+)+-[0-9]+$",
      maxLength: 30,
      default: "eu-west-1",
      description:
        "The region part of every tenant's user pool id (`<region>_<name>`), what Cognito clients configure as UserPoolId; the SRP proof hashes only the name part, so changing it never invalidates a password",
    },
    ID_TOKEN_SECONDS: {
      type: "integer",
      minimum: 5,
      maximum: ID_TOKEN_LIFETIME_SECONDS,
      default: ID_TOKEN_LIFETIME_SECONDS,
      description:
        "Lifetime of the IdTokens and AccessTokens the gateway issues (`ExpiresIn`); tokens of up to 3600 seconds are accepted whatever it is, so replicas may differ during a change",
    },
    REFRESH_TOKEN_DAYS: { type: "integer", minimum: 1, maximum: 3650, default: 30 },
    PASSWORD_SCRYPT_LOG_N: {
      type: "integer",
      minimum: 14,
      maximum: 20,
      default: 15,
      description: "scrypt cost of new password hashes: N = 2^this (r = 8, p = 1)",
    },
    LOGIN_FAILURE_WINDOW_SECONDS: { type: "integer", minimum: 1, default: 900 },
    LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: {
      type: "integer",
      minimum: 1,
      default: 10,
      description: "Failed logins of one username from one address that lock it there for the window",
    },
    LOGIN_FAILURES_PER_USERNAME: {
      type: "integer",
      minimum: 1,
      default: 20,
      description:
        "Failed logins of one username over every address after which addresses it has not logged in from wait before each attempt",
    },
    LOGIN_FAILURE_DELAY_MAX_SECONDS: {
      type: "integer",
      minimum: 1,
      default: 60,
      description: "The longest of those waits: 1 s, doubling with each further failure",
    },
    LOGIN_FAILURES_PER_ADDRESS: { type: "integer", minimum: 1, default: 50 },
    LOGIN_KNOWN_ADDRESS_DAYS: {
      type: "integer",
      minimum: 1,
      default: 30,
      description: "How long an address a username logged in from is spared the wait over every address",
    },
    TENANT_RATE_LIMIT: {
      type: "integer",
      minimum: 1,
      default: 6000,
      description: "Requests per tenant per TENANT_RATE_WINDOW_SECONDS, over all replicas",
    },
    TENANT_RATE_WINDOW_SECONDS: { type: "integer", minimum: 1, default: 60 },
    TENANT_LIMITS_CACHE_MS: {
      type: "integer",
      minimum: 0,
      maximum: 300000,
      default: 5000,
      description:
        "How long a replica uses what it read of a tenant's own limits; an operator's change reaches every replica within it",
    },
    USER_STATUS_CACHE_MS: {
      type: "integer",
      minimum: 0,
      default: 2000,
      description: "How long a replica trusts what it read about a user (disabled or not)",
    },
    UPSTREAM_CONNECT_TIMEOUT_MS: { type: "integer", minimum: 1, default: 1000 },
    UPSTREAM_TIMEOUT_MS: {
      type: "integer",
      minimum: 1,
      default: 10000,
      description: "Longest wait for stats' answer headers, and between two chunks of its body",
    },
    UPSTREAM_CONNECTIONS: { type: "integer", minimum: 1, default: 64 },
    LEADERBOARD_CACHE_MS: {
      type: "integer",
      minimum: 0,
      maximum: 10000,
      default: 1000,
      description:
        "How old a leaderboard answer this replica serves from its cache may be; a board change made through another replica or directly in stats is seen within it, one made through this replica at once. 0 turns the cache off",
    },
    LEADERBOARD_CACHE_ENTRIES: {
      type: "integer",
      minimum: 1,
      maximum: 100000,
      default: 1000,
      description:
        "Most leaderboard answers one replica keeps (over every tenant; the least recently read goes first). Answers over 64 KB are never kept, so the cache holds at most this many times 64 KB (64 MB at the default)",
    },
    LEADERBOARD_BATCH_READS: {
      type: "integer",
      minimum: 1,
      maximum: LEADERBOARD_READ_BATCH_MAX,
      default: 64,
      description:
        "Most leaderboard reads of one board this replica sends to stats in one call: while a call for a board is in flight, the reads that arrive wait for it to end and then go together. 1 sends every read by itself",
    },
    METRICS_PORT: {
      type: "integer",
      minimum: 0,
      maximum: 65535,
      description: "Serve /metrics and the detailed /readyz here only; unset: on the public port",
    },
    METRICS_HOST: { type: "string", default: "127.0.0.1" },
    ADMIN_ON_INTERNAL_PORT: {
      type: "boolean",
      default: false,
      description:
        "Serve the operator's /admin API on METRICS_PORT only, not on the public port (POST /admin/season/reset, a user-token operation, stays public); needs METRICS_PORT",
    },
    ADMIN_TOKEN_FAILURES_PER_ADDRESS: {
      type: "integer",
      minimum: 1,
      default: 10,
      description: "Wrong admin tokens one client address may send per window; past it /admin answers 429",
    },
    ADMIN_TOKEN_FAILURE_WINDOW_SECONDS: { type: "integer", minimum: 1, default: 60 },
    BODY_LIMIT: { type: "string", default: "1mb", pattern: "^[0-9]+(b|kb|mb)$" },
    WS_KEEPALIVE_MS: {
      type: "integer",
      minimum: 10,
      default: 60000,
      description: "Interval of the keepAlive push to every WebSocket connection",
    },
    WS_MAX_LIFETIME_MS: {
      type: "integer",
      minimum: 10,
      default: 7200000,
      description: "A WebSocket connection is closed (4000) after this long, whatever its token's expiry",
    },
    WS_MAX_BUFFERED_BYTES: {
      type: "integer",
      minimum: 1024,
      default: 1048576,
      description:
        "Unsent bytes one WebSocket connection may hold; a client that falls further behind is dropped",
    },
    WS_MAX_MESSAGE_BYTES: {
      type: "integer",
      minimum: 1024,
      default: 262144,
      description: "Largest incoming WebSocket message; larger ones close the connection with 1009",
    },
    WS_MAX_IN_FLIGHT: {
      type: "integer",
      minimum: 1,
      default: 32,
      description: "Messages one WebSocket connection may have awaiting an answer; more are refused with 429",
    },
    WS_MAX_MALFORMED_MESSAGES: {
      type: "integer",
      minimum: 1,
      default: 10,
      description:
        "Malformed WebSocket messages (not JSON, an invalid envelope or payload) in a row after which the connection is closed with 1008",
    },
    WS_MALFORMED_COOLDOWN_MS: {
      type: "integer",
      minimum: 0,
      maximum: 3600000,
      default: 10000,
      description:
        "After a connection is closed for malformed messages, how long its user's upgrades to that replica are refused (429)",
    },
    WS_MAX_CONNECTIONS: {
      type: "integer",
      minimum: 1,
      default: 10000,
      description: "Open WebSocket connections per replica; upgrades past it answer 503",
    },
    WS_MAX_CONNECTIONS_PER_TENANT: {
      type: "integer",
      minimum: 1,
      maximum: 100000,
      default: 1000,
      description:
        "Open WebSocket connections one tenant may hold on one replica, unless the tenant has its own limit; upgrades past it answer 503",
    },
    WS_MAX_CONNECTIONS_PER_USER: {
      type: "integer",
      minimum: 1,
      maximum: 100000,
      default: 100,
      description: "Open WebSocket connections one user may hold on one replica; upgrades past it answer 503",
    },
    WS_REGISTRATION_REFRESH_MS: {
      type: "integer",
      minimum: 10,
      default: 10000,
      description:
        "How often subscriptions are written again to Redis (and their users' status checked again)",
    },
    WS_REGISTRATION_TTL_MS: {
      type: "integer",
      minimum: 20,
      default: 30000,
      description: "A subscription not refreshed within this long (a dead replica) gets no more pushes",
    },
  },
} as const;

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

/** The validated, frozen configuration; throws one ConfigError that lists every problem. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(gatewayConfigSchema, env);
  if (config.ADMIN_ON_INTERNAL_PORT && config.METRICS_PORT === undefined) {
    // Otherwise the admin API would be served nowhere, or silently stay public.
    throw new ConfigError(["ADMIN_ON_INTERNAL_PORT=true needs METRICS_PORT (the internal port) to be set"]);
  }
  return config;
}
