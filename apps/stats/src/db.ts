import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;
export type { Prisma } from "./generated/prisma/client.js";
export type SqlPool = pg.Pool;
export type SqlClient = pg.PoolClient;

/**
 * One pool of PostgreSQL connections per process (`poolSize` bounds them). Prisma runs on it for
 * the ordinary queries; the hot paths (a match completion's transaction, a leaderboard rebuild's
 * pages) use it directly, because Prisma's per-query cost is most of a completion's CPU time.
 */
export function createPool(connectionString: string, poolSize = 10): SqlPool {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // A connection that breaks (PostgreSQL restarted) must not crash the process: idle ones report
  // to the pool, and a checked-out one (a transaction in progress) emits "error" on itself, which
  // with no listener is an uncaught exception. Its query fails as usual, and the pool drops the
  // broken connection when it is released.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

export function createDatabaseClient(pool: SqlPool): Database {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

// The readiness check is the database package's: the same for every app.
export { databaseReadiness } from "@arena/database";

/** PostgreSQL's deadlock and serialization failures: the transaction may simply run again. */
const RETRYABLE = new Set(["40P01", "40001"]);
const ATTEMPTS = 3;

/**
 * Runs `fn` in one transaction on a pooled connection: committed when it returns, rolled back
 * when it throws (the error passes through), so a request that fails halfway changes nothing. A
 * transaction PostgreSQL aborted as a deadlock victim runs again (at most three times).
 */
export async function inTransaction<T>(pool: SqlPool, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transactionOnce(pool, fn);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= ATTEMPTS || code === undefined || !RETRYABLE.has(code)) throw err;
    }
  }
}

async function transactionOnce<T>(pool: SqlPool, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
