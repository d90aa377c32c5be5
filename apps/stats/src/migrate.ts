import { migrateDatabase } from "@arena/database";
import { DEFAULT_STATS_DATABASE_URL } from "./config.js";
import { migrationsDir, schemaPath } from "./schema-version.js";

// The image's one-off migration job (`node dist/migrate.js`): same files as `pnpm db:migrate`.
// Only DATABASE_URL matters here, so the full config (which requires SERVICE_TOKEN) is not loaded.
const databaseUrl = process.env.DATABASE_URL || DEFAULT_STATS_DATABASE_URL;
try {
  const { applied } = await migrateDatabase({
    databaseUrl,
    schemaPath,
    migrationsDir,
    log: (msg) => console.log(msg),
  });
  console.log(applied.length > 0 ? `Applied ${applied.length} migration(s)` : "No migration to apply");
} catch (err) {
  console.error(`stats migrate: ${(err as Error).message}`);
  process.exitCode = 1;
}
