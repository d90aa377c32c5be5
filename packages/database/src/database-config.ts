import { DEFAULT_SERVER_URL, withDatabaseName } from "./database-url.js";

/**
 * An app's PostgreSQL settings, for its config schema (`...databaseConfigProperties("arena_stats", 20)`):
 * `DATABASE_URL`, defaulting to the app's own database on the local development server, and
 * `DATABASE_POOL_SIZE`.
 */
export function databaseConfigProperties(database: string, poolSize: number) {
  return {
    DATABASE_URL: {
      type: "string",
      pattern: "^postgres(ql)?://",
      default: withDatabaseName(DEFAULT_SERVER_URL, database),
    },
    DATABASE_POOL_SIZE: {
      type: "integer",
      minimum: 1,
      maximum: 200,
      default: poolSize,
      description: "PostgreSQL connections of the process at most",
    },
  } as const;
}
