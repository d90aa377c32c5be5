import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { migrateDatabase } from "../src/index.js";
import {
  copyFixturePrisma,
  databaseExists,
  dropTestDatabase,
  FIXTURE_MIGRATIONS,
  FIXTURE_SCHEMA,
  query,
  uniqueDatabaseUrl,
} from "./support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function newDatabase() {
  const db = uniqueDatabaseUrl();
  cleanups.push(() => dropTestDatabase(db.name));
  return db;
}

async function scratchPrisma() {
  const scratch = await copyFixturePrisma();
  cleanups.push(scratch.remove);
  return scratch;
}

/** A new database and a scratch copy of the fixture's Prisma folder, with the options naming both. */
async function scratchDatabase() {
  const db = newDatabase();
  const scratch = await scratchPrisma();
  const opts = { databaseUrl: db.url, schemaPath: scratch.schemaPath, migrationsDir: scratch.migrationsDir };
  return { db, scratch, opts };
}

async function addMigration(migrationsDir: string, name: string, sql: string) {
  await mkdir(path.join(migrationsDir, name));
  await writeFile(path.join(migrationsDir, name, "migration.sql"), sql);
}

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

describe("migrateDatabase", () => {
  it("creates the database, applies the migrations and records them as prisma migrate deploy does", async () => {
    const db = newDatabase();
    const messages: string[] = [];

    const { applied } = await migrateDatabase({
      databaseUrl: db.url,
      schemaPath: FIXTURE_SCHEMA,
      migrationsDir: FIXTURE_MIGRATIONS,
      log: (msg) => messages.push(msg),
    });

    expect(await databaseExists(db.name)).toBe(true);
    expect(applied).toEqual([expect.stringMatching(/^\d{14}_init$/)]);
    expect(messages).toContain(`Applied migration ${applied[0]}`);
    const rows = await query<MigrationRow>(db.url, "SELECT * FROM _prisma_migrations");
    const script = await readFile(path.join(FIXTURE_MIGRATIONS, applied[0]!, "migration.sql"), "utf8");
    expect(rows).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        checksum: createHash("sha256").update(script).digest("hex"),
        finished_at: expect.any(Date),
        migration_name: applied[0],
        logs: null,
        rolled_back_at: null,
        started_at: expect.any(Date),
        applied_steps_count: 1,
      },
    ]);
    const tables = await query<{ tablename: string }>(
      db.url,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    expect(tables.map((t) => t.tablename)).toEqual(["_prisma_migrations", "players"]);
  });

  it("applies nothing when run again", async () => {
    const db = newDatabase();
    const opts = { databaseUrl: db.url, schemaPath: FIXTURE_SCHEMA, migrationsDir: FIXTURE_MIGRATIONS };
    await migrateDatabase(opts);

    expect(await migrateDatabase(opts)).toEqual({ applied: [] });
    expect(await query(db.url, "SELECT * FROM _prisma_migrations")).toHaveLength(1);
  });

  it("applies each migration exactly once when several processes migrate at the same time", async () => {
    const db = newDatabase();
    const opts = { databaseUrl: db.url, schemaPath: FIXTURE_SCHEMA, migrationsDir: FIXTURE_MIGRATIONS };

    const results = await Promise.all([migrateDatabase(opts), migrateDatabase(opts), migrateDatabase(opts)]);

    expect(results.flatMap((r) => r.applied)).toHaveLength(1);
    expect(await query(db.url, "SELECT * FROM _prisma_migrations")).toHaveLength(1);
  });

  it("applies only the migrations added since the last run", async () => {
    const { db, scratch, opts } = await scratchDatabase();
    await migrateDatabase(opts);
    await addMigration(
      scratch.migrationsDir,
      "29990101000000_add_season",
      'ALTER TABLE "players" ADD COLUMN "season" INTEGER;\n',
    );

    expect(await migrateDatabase(opts)).toEqual({ applied: ["29990101000000_add_season"] });
    const columns = await query<{ column_name: string }>(
      db.url,
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'players' AND column_name = 'season'",
    );
    expect(columns).toHaveLength(1);
  });

  it("refuses to migrate when an applied migration file was changed", async () => {
    const { scratch, opts } = await scratchDatabase();
    const { applied } = await migrateDatabase(opts);
    await appendFile(path.join(scratch.migrationsDir, applied[0]!, "migration.sql"), "-- edited\n");

    await expect(migrateDatabase(opts)).rejects.toThrow(`${applied[0]} was edited after it was applied`);
  });

  it("accepts an applied migration whose text changed when earlier-checksums.txt lists the applied text", async () => {
    const { scratch, opts } = await scratchDatabase();
    const { applied } = await migrateDatabase(opts);
    const folder = path.join(scratch.migrationsDir, applied[0]!);
    const before = await readFile(path.join(folder, "migration.sql"), "utf8");
    await appendFile(path.join(folder, "migration.sql"), "-- a corrected comment\n");
    // A listed checksum of some other text does not help.
    const other = createHash("sha256").update("SELECT 2;\n").digest("hex");
    await writeFile(path.join(folder, "earlier-checksums.txt"), `# not this migration's\n${other}\n`);
    await expect(migrateDatabase(opts)).rejects.toThrow(`${applied[0]} was edited after it was applied`);

    const checksum = createHash("sha256").update(before).digest("hex");
    await writeFile(path.join(folder, "earlier-checksums.txt"), `# the text first shipped\n${checksum}\n`);
    await expect(migrateDatabase(opts)).resolves.toEqual({ applied: [] });

    await writeFile(path.join(folder, "earlier-checksums.txt"), "not-a-checksum\n");
    await expect(migrateDatabase(opts)).rejects.toThrow("is not a hex SHA-256");
  });

  it("refuses to migrate when the database has a migration the directory lacks", async () => {
    const { scratch, opts } = await scratchDatabase();
    const { applied } = await migrateDatabase(opts);
    await rm(path.join(scratch.migrationsDir, applied[0]!), { recursive: true });

    await expect(migrateDatabase(opts)).rejects.toThrow(
      `${applied[0]} is applied to the database but missing`,
    );
  });

  it("refuses to migrate past a migration that failed, and reports the SQL error that failed it", async () => {
    const { scratch, opts } = await scratchDatabase();
    await addMigration(
      scratch.migrationsDir,
      "29990101000000_broken",
      'ALTER TABLE "no_such_table" ADD COLUMN "x" INTEGER;\n',
    );

    await expect(migrateDatabase(opts)).rejects.toThrow(/no_such_table/);
    await expect(migrateDatabase(opts)).rejects.toThrow(
      "29990101000000_broken failed when it was last applied",
    );
  });
});
