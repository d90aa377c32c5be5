import type { ReadinessCheck } from "@arena/service-kit";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;
export type { Prisma } from "./generated/prisma/client.js";

export function createDatabaseClient(connectionString: string): Database {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString }) });
}

export function databaseReadiness(db: Database): ReadinessCheck {
  return {
    name: "database",
    check: async () => {
      await db.$queryRaw`SELECT 1`;
    },
  };
}
