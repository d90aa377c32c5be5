import { randomBytes } from "node:crypto";
import { DEFAULT_SERVER_URL, quoteIdentifier, withDatabaseName } from "./database-url.js";
import { migrateDatabase } from "./migrate-database.js";
import { dropDatabase, withMaintenanceClient } from "./pg-admin.js";

export interface CreateTestDatabaseOptions {
  schemaPath: string;
  migrationsDir: string;
  /** Any URL on the server to use; default TEST_DATABASE_URL, else the local PostgreSQL. */
  baseUrl?: string;
  /** Start of the database name, e.g. the app's name; default `arena_test`. */
  prefix?: string;
}

export interface TestDatabase {
  /** Connection string of the new database. */
  url: string;
  name: string;
  /** Closes every connection to the database and drops it; safe to call more than once. */
  drop(): Promise<void>;
}

const SUFFIX_BYTES = 6;
/** 63 (PostgreSQL's limit) minus "_" and the random suffix. */
const MAX_PREFIX_LENGTH = 63 - 1 - SUFFIX_BYTES * 2;

function testDatabaseName(prefix: string): string {
  const safePrefix =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, "_")
      .slice(0, MAX_PREFIX_LENGTH) || "arena_test";
  return `${safePrefix}_${randomBytes(SUFFIX_BYTES).toString("hex")}`;
}

/** A new, uniquely named, fully migrated database for one test run. */
export async function createTestDatabase(opts: CreateTestDatabaseOptions): Promise<TestDatabase> {
  const baseUrl = opts.baseUrl ?? (process.env.TEST_DATABASE_URL || DEFAULT_SERVER_URL);
  const name = testDatabaseName(opts.prefix ?? "arena_test");
  const url = withDatabaseName(baseUrl, name);
  const drop = () => dropDatabase(baseUrl, name);

  await withMaintenanceClient(baseUrl, async (client) => {
    await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
  });
  try {
    await migrateDatabase({
      databaseUrl: url,
      schemaPath: opts.schemaPath,
      migrationsDir: opts.migrationsDir,
    });
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  }
  return { url, name, drop };
}
