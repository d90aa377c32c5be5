import { DEFAULT_SERVER_URL, withDatabaseName } from "./database-url.js";

/**
 * An app's PostgreSQL settings, for its config schema (`...databaseConfigProperties("arena_stats", 20)`):
 * `DATABASE_URL`, defaulting to the app's own database on the local development server,
 * `DATABASE_POOL_SIZE`, and `DATABASE_MIGRATION_URL`, where migrations run when DATABASE_URL goes
 * through a transaction pooler.
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
    DATABASE_MIGRATION_URL: {
      type: "string",
      pattern: "^postgres(ql)?://",
      description:
        "Where the migration job connects (default DATABASE_URL): PostgreSQL itself or a session pool, never PgBouncer's transaction pooling (the migration lock is held by a session)",
    },
  } as const;
}

/** The URL migrations run on: DATABASE_MIGRATION_URL when set, else DATABASE_URL. */
export function migrationDatabaseUrl(config: {
  DATABASE_URL: string;
  DATABASE_MIGRATION_URL?: string;
}): string {
  return config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL;
}
