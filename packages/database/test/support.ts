import { randomBytes } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { DEFAULT_SERVER_URL, quoteIdentifier, withDatabaseName } from "../src/database-url.js";

export const SERVER_URL = process.env.TEST_DATABASE_URL || DEFAULT_SERVER_URL;
export const FIXTURE_APP = fileURLToPath(new URL("./fixtures/app/", import.meta.url));
export const FIXTURE_SCHEMA = path.join(FIXTURE_APP, "prisma", "schema.prisma");
export const FIXTURE_MIGRATIONS = path.join(FIXTURE_APP, "prisma", "migrations");

/** Every database these tests create starts with this, so a leftover is easy to recognise. */
export const TEST_PREFIX = "arena_database_test";

export function uniqueDatabaseUrl(): { url: string; name: string } {
  const name = `${TEST_PREFIX}_${randomBytes(6).toString("hex")}`;
  return { url: withDatabaseName(SERVER_URL, name), name };
}

export async function query<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function databaseExists(name: string): Promise<boolean> {
  return (await query(SERVER_URL, "SELECT 1 FROM pg_database WHERE datname = $1", [name])).length === 1;
}

export async function dropTestDatabase(name: string): Promise<void> {
  await query(SERVER_URL, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
}

/** A scratch copy of the fixture app's prisma folder, to change schemas and migrations freely. */
export async function copyFixturePrisma(): Promise<{
  dir: string;
  schemaPath: string;
  migrationsDir: string;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), "arena-database-"));
  await cp(path.join(FIXTURE_APP, "prisma"), dir, { recursive: true });
  return {
    dir,
    schemaPath: path.join(dir, "schema.prisma"),
    migrationsDir: path.join(dir, "migrations"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
