import type { ReadinessCheck } from "@arena/service-kit";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;
export type { Prisma } from "./generated/prisma/client.js";

/** `poolSize` bounds the PostgreSQL connections of this process (completions hold one each). */
export function createDatabaseClient(connectionString: string, poolSize = 10): Database {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: poolSize }) });
}

export function databaseReadiness(db: Database): ReadinessCheck {
  return {
    name: "database",
    check: async () => {
      await db.$queryRaw`SELECT 1`;
    },
  };
}
