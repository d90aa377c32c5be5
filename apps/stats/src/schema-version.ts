import { fileURLToPath } from "node:url";
import { assertMigrationsApplied, shippedMigrationsIn } from "@arena/database";
import type { Database } from "./db.js";

export { OutdatedSchemaError } from "@arena/database";

// Resolved from this file, so the same paths work from src/ (tests) and dist/ (the image ships prisma/).
export const schemaPath = fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url));
export const migrationsDir = fileURLToPath(new URL("../prisma/migrations", import.meta.url));

/** The migrations shipped with this build. */
export const shippedMigrations = (dir = migrationsDir) => shippedMigrationsIn(dir);

/** Refuses to run against a database that lacks a migration this build ships (see @arena/database). */
export const assertSchemaIsCurrent = (db: Database, dir = migrationsDir) =>
  assertMigrationsApplied(db, dir, "@arena/stats");
