import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;
export type { Prisma } from "./generated/prisma/client.js";

/** `poolSize`: PostgreSQL connections at most (DATABASE_POOL_SIZE; pg's default of 10 when left out). */
export function createDatabaseClient(connectionString: string, poolSize?: number): Database {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString, ...(poolSize ? { max: poolSize } : {}) }),
  });
}

// The readiness check is the database package's: the same for every app.
export { databaseReadiness } from "@arena/database";
