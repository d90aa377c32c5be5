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
  // An idle connection that breaks (PostgreSQL restarted) must not crash the process.
  pool.on("error", () => {});
  return pool;
}

export function createDatabaseClient(pool: SqlPool): Database {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

// The readiness check is the database package's: the same for every app.
export { databaseReadiness } from "@arena/database";
