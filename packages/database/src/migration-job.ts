import { type MigrateDatabaseOptions, migrateDatabase } from "./migrate-database.js";

/**
 * An app image's one-off migration job (`node dist/migrate.js`): applies the app's migrations, says
 * how many, and on failure (a bad DATABASE_URL included: `databaseUrl` reads the app's config)
 * prints one message and sets a failing exit code, with no stack for an operator to read past.
 */
export async function runMigrationJob(
  app: string,
  options: Omit<MigrateDatabaseOptions, "log" | "databaseUrl"> & { databaseUrl: () => string },
): Promise<void> {
  try {
    const { applied } = await migrateDatabase({
      ...options,
      databaseUrl: options.databaseUrl(),
      log: (msg) => console.log(msg),
    });
    console.log(applied.length > 0 ? `Applied ${applied.length} migration(s)` : "No migration to apply");
  } catch (err) {
    console.error(`${app} migrate: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
