import { readFile } from "node:fs/promises";
import path from "node:path";
import type pg from "pg";
import { assertPublicSchema, databaseNameOf } from "./database-url.js";
import {
  checksumMatches,
  type MigrationsDirectory,
  readMigrationsDirectory,
  toMigrationList,
} from "./migrations-directory.js";
import { createDatabaseIfMissing, withClient } from "./pg-admin.js";
import { NO_FILTERS, withSchemaEngine } from "./schema-engine.js";

export interface MigrateDatabaseOptions {
  databaseUrl: string;
  schemaPath: string;
  migrationsDir: string;
  log?: (msg: string) => void;
}

/**
 * Held (per database) while one process checks and applies migrations. It is our own key, not the
 * schema engine's (72707369), so the engine's own locking can never wait on us.
 */
const MIGRATE_LOCK_KEY = "4702111234474983745";

/** Thrown when the database's migration history does not match the migrations directory. */
export class MigrationHistoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationHistoryError";
  }
}

interface RecordedMigration {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

async function recordedMigrations(client: pg.Client): Promise<RecordedMigration[]> {
  const table = await client.query<{ exists: boolean }>(
    "SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS exists",
  );
  if (!table.rows[0]?.exists) return [];
  const result = await client.query<RecordedMigration>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at
       FROM public._prisma_migrations ORDER BY started_at, migration_name`,
  );
  return result.rows;
}

/**
 * The migrations still to apply, after checking that everything the database records is still in
 * the directory, unchanged, and finished. `prisma migrate deploy` only warns about the first two;
 * here they stop the migration, because a service would start against a schema its code does
 * not describe.
 */
function pendingMigrations(directory: MigrationsDirectory, recorded: RecordedMigration[]): string[] {
  const onDisk = new Map(directory.migrations.map((m) => [m.name, m]));
  const active = recorded.filter((row) => row.rolled_back_at === null);
  const problems: string[] = [];
  for (const row of active) {
    const migration = onDisk.get(row.migration_name);
    if (row.finished_at === null) {
      problems.push(
        `${row.migration_name} failed when it was last applied; repair the database, then mark it ` +
          `(\`prisma migrate resolve --rolled-back ${row.migration_name}\` or \`--applied\`)`,
      );
    } else if (migration === undefined) {
      problems.push(`${row.migration_name} is applied to the database but missing from ${directory.dir}`);
    } else if (!checksumMatches(migration.script, row.checksum, migration.earlierChecksums)) {
      problems.push(`${row.migration_name} was edited after it was applied (its checksum differs)`);
    }
  }
  if (problems.length > 0) {
    throw new MigrationHistoryError(
      `The database's migration history does not match the migrations directory:\n${problems
        .map((p) => `  - ${p}`)
        .join("\n")}`,
    );
  }
  const applied = new Set(active.map((row) => row.migration_name));
  return directory.migrations.map((m) => m.name).filter((name) => !applied.has(name));
}

async function lockMigrations(client: pg.Client, log: (msg: string) => void): Promise<void> {
  const attempt = await client.query<{ locked: boolean }>(
    "SELECT pg_try_advisory_lock($1::bigint) AS locked",
    [MIGRATE_LOCK_KEY],
  );
  if (attempt.rows[0]?.locked) return;
  log("Another process is migrating this database; waiting for it to finish");
  await client.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATE_LOCK_KEY]);
}

/**
 * Creates the database if needed and applies the pending migrations with Prisma's WebAssembly
 * schema engine, recording them in `_prisma_migrations` exactly as `prisma migrate deploy` does.
 */
export async function migrateDatabase(opts: MigrateDatabaseOptions): Promise<{ applied: string[] }> {
  const log = opts.log ?? (() => {});
  assertPublicSchema(opts.databaseUrl);
  const databaseName = databaseNameOf(opts.databaseUrl);
  const schemaPath = path.resolve(opts.schemaPath);
  const schemaText = await readFile(schemaPath, "utf8");
  const directory = await readMigrationsDirectory(opts.migrationsDir);

  if (await createDatabaseIfMissing(opts.databaseUrl)) log(`Created database "${databaseName}"`);

  return withClient(opts.databaseUrl, async (lockClient) => {
    await lockMigrations(lockClient, log);
    try {
      const pending = pendingMigrations(directory, await recordedMigrations(lockClient));
      if (pending.length === 0) {
        log(`Database "${databaseName}" is up to date (${directory.migrations.length} migrations)`);
        return { applied: [] };
      }
      const output = await withSchemaEngine(
        { databaseUrl: opts.databaseUrl, schemaPath, schemaText, log },
        (engine) =>
          engine.applyMigrations({ migrationsList: toMigrationList(directory), filters: NO_FILTERS }),
      ).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`Migrating database "${databaseName}" failed: ${reason}`, { cause: error });
      });
      for (const name of output.appliedMigrationNames) log(`Applied migration ${name}`);
      return { applied: output.appliedMigrationNames };
    } finally {
      await lockClient.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATE_LOCK_KEY]).catch(() => {});
    }
  });
}
