import { migrationDatabaseUrl, runMigrationJob } from "@arena/database";
import { loadConfig } from "@arena/service-kit";
import { licenseConfigSchema } from "./config.js";
import { migrationsDir, schemaPath } from "./schema-version.js";

// The image's one-off migration job (`node dist/migrate.js`): the same files as `pnpm db:migrate`,
// on DATABASE_MIGRATION_URL, else DATABASE_URL, read through the service's own schema and default
// (nothing else is required here).
const { DATABASE_URL, DATABASE_MIGRATION_URL } = licenseConfigSchema.properties;
const databaseUrl = () =>
  migrationDatabaseUrl(
    loadConfig({ type: "object", properties: { DATABASE_URL, DATABASE_MIGRATION_URL } } as const),
  );
await runMigrationJob("license", { databaseUrl, schemaPath, migrationsDir });
