import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "@jest/globals";
import pg from "pg";
import { createTestDatabase } from "../src/testing.js";
import {
  copyFixturePrisma,
  databaseExists,
  FIXTURE_MIGRATIONS,
  FIXTURE_SCHEMA,
  query,
  SERVER_URL,
} from "./support.js";

describe("createTestDatabase", () => {
  it("creates a migrated database with a unique prefixed name, and drop() removes it", async () => {
    const first = await createTestDatabase({
      schemaPath: FIXTURE_SCHEMA,
      migrationsDir: FIXTURE_MIGRATIONS,
      baseUrl: SERVER_URL,
      prefix: "arena_database_test",
    });
    const second = await createTestDatabase({
      schemaPath: FIXTURE_SCHEMA,
      migrationsDir: FIXTURE_MIGRATIONS,
    });
    try {
      expect(first.name).toMatch(/^arena_database_test_[0-9a-f]{12}$/);
      expect(second.name).toMatch(/^arena_test_[0-9a-f]{12}$/);
      expect(first.url).toBe(`postgresql://postgres@127.0.0.1:5432/${first.name}`);
      expect(await query(first.url, "SELECT handle FROM players")).toEqual([]);
    } finally {
      await first.drop();
      await second.drop();
    }

    expect(await databaseExists(first.name)).toBe(false);
    expect(await databaseExists(second.name)).toBe(false);
  });

  it("drops a database that still has open connections, and dropping twice is harmless", async () => {
    const db = await createTestDatabase({ schemaPath: FIXTURE_SCHEMA, migrationsDir: FIXTURE_MIGRATIONS });
    const lingering = new pg.Client({ connectionString: db.url });
    lingering.on("error", () => {});
    await lingering.connect();

    await db.drop();
    await db.drop();

    expect(await databaseExists(db.name)).toBe(false);
    await lingering.end().catch(() => {});
  });

  it("drops the new database again when its migrations fail", async () => {
    const app = await copyFixturePrisma();
    try {
      await mkdir(path.join(app.migrationsDir, "29990101000000_broken"));
      await writeFile(
        path.join(app.migrationsDir, "29990101000000_broken", "migration.sql"),
        "SELECT nonsense(;\n",
      );
      const prefix = `arena_database_test_broken_${process.pid}`;

      await expect(createTestDatabase({ ...app, prefix })).rejects.toThrow(
        /29990101000000_broken|syntax error/,
      );

      const left = await query(SERVER_URL, "SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [
        prefix,
      ]);
      expect(left).toEqual([]);
    } finally {
      await app.remove();
    }
  });
});
