import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createMigration, migrateDatabase } from "../src/index.js";
import { LOCKFILE_CONTENT } from "../src/migrations-directory.js";
import { copyFixturePrisma, dropTestDatabase, query, SERVER_URL, uniqueDatabaseUrl } from "./support.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scratch() {
  const copy = await copyFixturePrisma();
  const db = uniqueDatabaseUrl();
  cleanups.push(copy.remove, () => dropTestDatabase(db.name));
  return { ...copy, databaseUrl: db.url };
}

async function shadowDatabases(): Promise<string[]> {
  const rows = await query<{ datname: string }>(
    SERVER_URL,
    "SELECT datname FROM pg_database WHERE datname LIKE 'prisma_migrate_shadow_db_%'",
  );
  return rows.map((r) => r.datname);
}

describe("createMigration", () => {
  it("creates nothing when the schema matches the migrations, and leaves no shadow database", async () => {
    const app = await scratch();
    const before = await readdir(app.migrationsDir);

    expect(await createMigration({ ...app, name: "noop" })).toEqual({ created: null });
    expect(await readdir(app.migrationsDir)).toEqual(before);
    expect(await shadowDatabases()).toEqual([]);
  });

  it("writes the SQL for a schema change into a new timestamped folder that migrates cleanly", async () => {
    const app = await scratch();
    const schema = await readFile(app.schemaPath, "utf8");
    await writeFile(
      app.schemaPath,
      schema.replace(
        "  rating    Float    @default(1500)\n",
        "  rating    Float    @default(1500)\n  season    Int?\n",
      ),
    );

    const { created } = await createMigration({ ...app, name: "Add player season" });

    expect(created).toMatch(/^\d{14}_add_player_season$/);
    const sql = await readFile(path.join(app.migrationsDir, created!, "migration.sql"), "utf8");
    expect(sql).toContain('ALTER TABLE "players" ADD COLUMN     "season" INTEGER;');
    expect(await shadowDatabases()).toEqual([]);
    const { applied } = await migrateDatabase(app);
    expect(applied.at(-1)).toBe(created);
    expect(await createMigration({ ...app, name: "again" })).toEqual({ created: null });
  });

  it("starts a migrations directory, lockfile included, when there is none", async () => {
    const app = await scratch();
    await rm(app.migrationsDir, { recursive: true });

    const { created } = await createMigration({ ...app, name: "init" });

    expect(created).toMatch(/^\d{14}_init$/);
    expect(await readFile(path.join(app.migrationsDir, "migration_lock.toml"), "utf8")).toBe(
      LOCKFILE_CONTENT,
    );
    const sql = await readFile(path.join(app.migrationsDir, created!, "migration.sql"), "utf8");
    expect(sql).toContain('CREATE TYPE "Region" AS ENUM');
    expect(sql).toContain('CREATE TABLE "players"');
  });

  it("always names the new migration after the newest existing one", async () => {
    const app = await scratch();
    const future = path.join(app.migrationsDir, "29991231235959_from_the_future");
    await mkdir(future);
    await writeFile(
      path.join(future, "migration.sql"),
      'ALTER TABLE "players" ADD COLUMN "season" INTEGER;\n',
    );

    const { created } = await createMigration({ ...app, name: "drop season" });

    expect(created).toBe("30000101000000_drop_season");
    const sql = await readFile(path.join(app.migrationsDir, created!, "migration.sql"), "utf8");
    expect(sql).toContain('DROP COLUMN "season"');
  });
});
