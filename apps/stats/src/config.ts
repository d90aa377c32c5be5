import { databaseConfigProperties } from "@arena/database";
import { redisConfigProperties } from "@arena/redis";
import { commonConfigProperties, loadConfig, portConfigProperty } from "@arena/service-kit";

export const statsConfigSchema = {
  type: "object",
  required: ["SERVICE_TOKEN"],
  properties: {
    ...commonConfigProperties,
    ...portConfigProperty(8081),
    ...databaseConfigProperties("arena_stats", 20),
    DATABASE_POOL_MODE: {
      type: "string",
      enum: ["session", "transaction"],
      default: "session",
      description:
        "session: DATABASE_URL (and DATABASE_READ_URL) is PostgreSQL itself or PgBouncer's session pooling, and the hot statements are prepared once per connection; transaction: PgBouncer's transaction pooling, where nothing outlives a transaction, so every statement is sent unprepared",
    },
    DATABASE_READ_URL: {
      type: "string",
      pattern: "^postgres(ql)?://",
      description:
        "A streaming read replica of DATABASE_URL's database for the reads that tolerate a little staleness (player statistics and history, season lists, leaderboard rebuilds once it caught up); unset: the primary",
    },
    ...redisConfigProperties,
    SERVICE_TOKEN: {
      type: "string",
      minLength: 16,
      description: "The gateway's bearer token; every route but /livez, /readyz and /metrics requires it",
    },
    MATCHMAKER_URL: {
      type: "string",
      pattern: "^https?://",
      default: "http://127.0.0.1:8000",
      description: "The matchmaker the hosted queue calls (the matchmaking loop)",
    },
    MATCHMAKING_INTERVAL_MS: {
      type: "integer",
      minimum: 50,
      default: 1000,
      description: "Pause between two rounds of the matchmaking loop over every active game",
    },
    MATCHMAKING_LOCK_MS: {
      type: "integer",
      minimum: 500,
      default: 5000,
      description:
        "Lease of a game's matchmaking lock: how soon another replica takes over a dead one's games",
    },
    MATCHMAKER_TIMEOUT_MS: {
      type: "integer",
      minimum: 100,
      default: 10000,
      description: "Longest wait for the matchmaker's answer",
    },
    MATCHMAKING_POOL_SIZE: {
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 4,
      description:
        "PostgreSQL connections of the matchmaking loop's own pool, beside DATABASE_POOL_SIZE: its rounds never wait behind request traffic",
    },
    COMPLETION_TRANSACTIONS: {
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 4,
      description:
        "Match-completion transactions at once (each on a DATABASE_POOL_SIZE connection); completions that arrive meanwhile share the next one",
    },
    OUTBOX_INTERVAL_MS: {
      type: "integer",
      minimum: 10,
      default: 1000,
      description: "How often leaderboard writes that missed Redis are retried",
    },
    REBUILD_WAIT_MS: {
      type: "integer",
      minimum: 100,
      default: 30000,
      description: "How long a leaderboard read waits for a rebuild (Redis restarted empty) before a 503",
    },
  },
} as const;

export type StatsConfig = ReturnType<typeof loadStatsConfig>;

/** The validated, frozen configuration; throws one ConfigError that lists every problem. */
export function loadStatsConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(statsConfigSchema, env);
}
