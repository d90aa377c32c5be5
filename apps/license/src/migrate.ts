import { runMigrationJob } from "@arena/database";
import { loadConfig } from "@arena/service-kit";
import { licenseConfigSchema } from "./config.js";
import { migrationsDir, schemaPath } from "./schema-version.js";

// The image's one-off migration job (`node dist/migrate.js`): the same files as `pnpm db:migrate`,
// and DATABASE_URL read through the service's own schema and default (nothing else is required here).
const databaseUrl = () =>
  loadConfig({
    type: "object",
    properties: { DATABASE_URL: licenseConfigSchema.properties.DATABASE_URL },
  } as const).DATABASE_URL;
await runMigrationJob("license", { databaseUrl, schemaPath, migrationsDir });
