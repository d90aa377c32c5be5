export { type CreateMigrationOptions, createMigration, migrationSlug } from "./create-migration.js";
export { databaseConfigProperties, migrationDatabaseUrl } from "./database-config.js";
export { databaseNameOf, databaseUrlFromEnv, withDatabaseName } from "./database-url.js";
export { type MigrateDatabaseOptions, MigrationHistoryError, migrateDatabase } from "./migrate-database.js";
export { runMigrationJob } from "./migration-job.js";
export { migrationChecksum } from "./migrations-directory.js";
export { type PrismaGenerateOptions, runPrismaGenerate } from "./prisma-generate.js";
export { schemaEngineVersion } from "./schema-engine.js";
export {
  assertSchemaIsCurrent as assertMigrationsApplied,
  databaseReadiness,
  OutdatedSchemaError,
  type RawQueryClient,
  shippedMigrations as shippedMigrationsIn,
} from "./schema-version.js";
export { COMMITTED_WAL_POSITION_SQL, walRecordEndSql } from "./wal-position.js";
