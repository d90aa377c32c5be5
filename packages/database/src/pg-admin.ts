import pg from "pg";
import { databaseNameOf, pgConnectionString, quoteIdentifier, withDatabaseName } from "./database-url.js";

/** Databases every PostgreSQL server has, to connect to when the target database may not exist. */
const MAINTENANCE_DATABASES = ["postgres", "template1"] as const;

const DUPLICATE_DATABASE = "42P04";
const UNIQUE_VIOLATION = "23505";
const INVALID_CATALOG_NAME = "3D000";

function pgErrorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}

/** Runs `work` on a single connection to `databaseUrl`, always closing it. */
export async function withClient<T>(
  databaseUrl: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: pgConnectionString(databaseUrl) });
  // A server-side termination (DROP DATABASE ... WITH (FORCE)) must not crash the process.
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Runs `work` on a connection to a maintenance database of the server `databaseUrl` points at. */
export async function withMaintenanceClient<T>(
  databaseUrl: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  let lastError: unknown;
  for (const name of MAINTENANCE_DATABASES) {
    let connected = false;
    try {
      return await withClient(withDatabaseName(databaseUrl, name), (client) => {
        connected = true;
        return work(client);
      });
    } catch (error) {
      if (connected || pgErrorCode(error) !== INVALID_CATALOG_NAME) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

/** Creates the database the URL names unless it exists; true when this call created it. */
export async function createDatabaseIfMissing(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  return withMaintenanceClient(databaseUrl, async (client) => {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (existing.rowCount !== 0) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (error) {
      // Another process created it between our check and our CREATE.
      const code = pgErrorCode(error);
      if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  });
}

/** Drops a database on the server `databaseUrl` points at, closing whatever connections it still has. */
export async function dropDatabase(databaseUrl: string, name: string): Promise<void> {
  await withMaintenanceClient(databaseUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  });
}
