import { readdir } from "node:fs/promises";

/** What the check needs of a Prisma client: tagged-template raw queries. */
export interface RawQueryClient {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
}

export class OutdatedSchemaError extends Error {
  constructor(
    readonly missing: string[],
    packageName: string,
  ) {
    super(
      `The database schema is older than this build; missing migrations: ${missing.join(", ")}. ` +
        `Run \`pnpm --filter ${packageName} db:migrate\` (or \`arena-db migrate\`) first.`,
    );
    this.name = "OutdatedSchemaError";
  }
}

/** The migrations shipped in `dir`, by folder name (which starts with their timestamp). */
export async function shippedMigrations(dir: string): Promise<string[]> {
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
export async function assertSchemaIsCurrent(
  db: RawQueryClient,
  migrationsDir: string,
  packageName: string,
): Promise<void> {
  const shipped = await shippedMigrations(migrationsDir);
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
  if (missing.length > 0) throw new OutdatedSchemaError(missing, packageName);
}

/** A readiness check (service-kit `ReadinessCheck`) that asks PostgreSQL for a trivial answer. */
export function databaseReadiness(db: RawQueryClient, name = "database") {
  return {
    name,
    async check(): Promise<void> {
      await db.$queryRaw`SELECT 1`;
    },
  };
}
