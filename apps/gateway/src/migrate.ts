import { migrateDatabase } from "@arena/database";
import { loadConfig } from "@arena/service-kit";
import { gatewayConfigSchema } from "./config.js";
import { migrationsDir, schemaPath } from "./schema-version.js";

// The image's one-off migration job (`node dist/migrate.js`): same files as `pnpm db:migrate`, and
// DATABASE_URL read through the service's own schema (and default).
const config = loadConfig({
  type: "object",
  properties: { DATABASE_URL: gatewayConfigSchema.properties.DATABASE_URL },
} as const);
try {
  const { applied } = await migrateDatabase({
    databaseUrl: config.DATABASE_URL,
    schemaPath,
    migrationsDir,
    log: (msg) => console.log(msg),
  });
  console.log(applied.length > 0 ? `Applied ${applied.length} migration(s)` : "No migration to apply");
} catch (err) {
  console.error(`gateway migrate: ${(err as Error).message}`);
  process.exitCode = 1;
}
