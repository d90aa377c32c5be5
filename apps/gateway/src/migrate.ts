import { migrateDatabase } from "@arena/database";
import { migrationsDir, schemaPath } from "./schema-version.js";

// The image's one-off migration job (`node dist/migrate.js`): same files as `pnpm db:migrate`.
const databaseUrl = process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/arena_gateway";
try {
  const { applied } = await migrateDatabase({
    databaseUrl,
    schemaPath,
    migrationsDir,
    log: (msg) => console.log(msg),
  });
  console.log(applied.length > 0 ? `Applied ${applied.length} migration(s)` : "No migration to apply");
} catch (err) {
  console.error(`gateway migrate: ${(err as Error).message}`);
  process.exitCode = 1;
}
