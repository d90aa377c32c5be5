import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { assertPublicSchema } from "./database-url.js";
import {
  LOCKFILE,
  LOCKFILE_CONTENT,
  MIGRATION_FILE,
  readMigrationsDirectory,
  toMigrationList,
} from "./migrations-directory.js";
import { createDatabaseIfMissing } from "./pg-admin.js";
import { NO_FILTERS, withSchemaEngine } from "./schema-engine.js";

export interface CreateMigrationOptions {
  /** A server to replay the existing migrations on (in a temporary shadow database). */
  databaseUrl: string;
  schemaPath: string;
  migrationsDir: string;
  name: string;
}

const MAX_NAME_LENGTH = 200;

/** `Add player ratings!` → `add_player_ratings`, the way `prisma migrate dev --name` names folders. */
export function migrationSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, MAX_NAME_LENGTH);
  if (slug === "") throw new Error(`"${name}" is not usable as a migration name (use letters and digits)`);
  return slug;
}

function timestampOf(date: Date): string {
  return date.toISOString().replace(/\D/g, "").slice(0, 14);
}

/**
 * The UTC creation time as yyyymmddhhmmss, moved past the newest existing migration if needed, so
 * the new one always sorts (and is therefore applied) last.
 */
function nextTimestamp(existing: string[], now: Date): string {
  const newest = existing
    .map((name) => name.slice(0, 14))
    .filter((ts) => /^\d{14}$/.test(ts))
    .sort()
    .at(-1);
  let candidate = now;
  if (newest !== undefined && timestampOf(candidate) <= newest) {
    const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((at, i) =>
      Number(newest.slice(at, at + (i === 0 ? 4 : 2))),
    ) as [number, number, number, number, number, number];
    candidate = new Date(Date.UTC(y, mo - 1, d, h, mi, s + 1));
  }
  return timestampOf(candidate);
}

/**
 * Writes `<migrationsDir>/<timestamp>_<name>/migration.sql` with the SQL that takes a database from
 * the existing migrations (replayed in a shadow database) to the schema; `created: null` when the
 * schema needs no change.
 */
export async function createMigration(opts: CreateMigrationOptions): Promise<{ created: string | null }> {
  assertPublicSchema(opts.databaseUrl);
  const slug = migrationSlug(opts.name);
  const schemaPath = path.resolve(opts.schemaPath);
  const schemaText = await readFile(schemaPath, "utf8");
  const directory = await readMigrationsDirectory(opts.migrationsDir);

  // The engine insists on a live connection even though the diff only touches shadow databases.
  await createDatabaseIfMissing(opts.databaseUrl);
  const diff = await withSchemaEngine({ databaseUrl: opts.databaseUrl, schemaPath, schemaText }, (engine) =>
    engine.diff({
      from: { tag: "migrations", ...toMigrationList(directory) },
      to: { tag: "schemaDatamodel", files: [{ path: schemaPath, content: schemaText }] },
      script: true,
      exitCode: true,
      filters: NO_FILTERS,
    }),
  );
  // With exitCode set, the engine answers 2 when there is a difference and 0 when there is none.
  if (diff.exitCode !== 2 || !diff.stdout) return { created: null };

  const name = `${nextTimestamp(
    directory.migrations.map((m) => m.name),
    new Date(),
  )}_${slug}`;
  await mkdir(path.join(directory.dir, name), { recursive: true });
  await writeFile(path.join(directory.dir, name, MIGRATION_FILE), diff.stdout, { flag: "wx" });
  if (directory.lockfile === null) await writeFile(path.join(directory.dir, LOCKFILE), LOCKFILE_CONTENT);
  return { created: name };
}
