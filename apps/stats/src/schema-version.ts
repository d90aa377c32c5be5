import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Database } from "./db.js";

// Resolved from this file, so the same paths work from src/ (tests) and dist/ (the image ships prisma/).
export const schemaPath = fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url));
export const migrationsDir = fileURLToPath(new URL("../prisma/migrations", import.meta.url));

export class OutdatedSchemaError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `The database schema is older than this build; missing migrations: ${missing.join(", ")}. ` +
        "Run `pnpm --filter @arena/stats db:migrate` (or `arena-db migrate`) first.",
    );
    this.name = "OutdatedSchemaError";
  }
}

/** The migrations shipped with this build, by folder name (which starts with their timestamp). */
export async function shippedMigrations(dir = migrationsDir): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * Refuses to run against a database that lacks a migration this build ships. A database *newer*
 * than the build (a migration we do not know) is accepted: that is a rolling deploy in progress,
 * and migrations are written to be backward compatible for one release.
 */
export async function assertSchemaIsCurrent(db: Database, dir = migrationsDir): Promise<void> {
  const shipped = await shippedMigrations(dir);
  const [table] = await db.$queryRaw<Array<{ present: boolean }>>`
    SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS present`;
  const applied = new Set<string>();
  if (table?.present) {
    const rows = await db.$queryRaw<Array<{ migration_name: string }>>`
      SELECT migration_name FROM public._prisma_migrations
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    for (const row of rows) applied.add(row.migration_name);
  }
  const missing = shipped.filter((name) => !applied.has(name));
  if (missing.length > 0) throw new OutdatedSchemaError(missing);
}
