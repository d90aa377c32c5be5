#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createMigration } from "./create-migration.js";
import { databaseUrlFromEnv, redactUrl } from "./database-url.js";
import { migrateDatabase } from "./migrate-database.js";
import { runPrismaGenerate } from "./prisma-generate.js";

const USAGE = `Usage (from an app's folder; DATABASE_MIGRATION_URL, else DATABASE_URL, defaults to the local
server and the app's name):
  arena-db migrate                 apply pending migrations from ./prisma/migrations
  arena-db new-migration <name>    write a migration for the changes in ./prisma/schema.prisma
  arena-db generate [args...]      run \`prisma generate\` offline`;

/**
 * DATABASE_MIGRATION_URL (a direct connection beside a DATABASE_URL through a transaction pooler),
 * else DATABASE_URL, or else the local server with a database named after the app (`@arena/license` →
 * `arena_license`), so a bare `pnpm db:migrate` on a development machine never lands in `postgres`.
 */
async function cliDatabaseUrl(cwd: string): Promise<string> {
  const direct = process.env.DATABASE_MIGRATION_URL?.trim();
  if (direct) return direct;
  if (process.env.DATABASE_URL?.trim()) return databaseUrlFromEnv();
  let name: string | undefined;
  try {
    name = (JSON.parse(await readFile(path.join(cwd, "package.json"), "utf8")) as { name?: string }).name;
  } catch {
    // No package.json: nothing to name the database after.
  }
  const databaseName = name
    ?.toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!databaseName)
    throw new Error("DATABASE_URL is not set (and there is no package.json name to default to)");
  return databaseUrlFromEnv({}, databaseName);
}

function paths(cwd: string) {
  const prismaDir = path.join(cwd, "prisma");
  return {
    schemaPath: path.join(prismaDir, "schema.prisma"),
    migrationsDir: path.join(prismaDir, "migrations"),
  };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const cwd = process.cwd();
  switch (command) {
    case "migrate": {
      const url = await cliDatabaseUrl(cwd);
      console.log(`Migrating ${redactUrl(url)}`);
      const { applied } = await migrateDatabase({
        databaseUrl: url,
        ...paths(cwd),
        log: (msg) => console.log(msg),
      });
      if (applied.length > 0) console.log(`Applied ${applied.length} migration(s)`);
      return 0;
    }
    case "new-migration": {
      const name = rest.join(" ").trim();
      if (name === "") {
        console.error("arena-db new-migration needs a name, e.g. `arena-db new-migration add_seasons`");
        return 2;
      }
      const { created } = await createMigration({
        databaseUrl: await cliDatabaseUrl(cwd),
        ...paths(cwd),
        name,
      });
      console.log(
        created === null
          ? "The schema matches the migrations; no migration created"
          : `Created prisma/migrations/${created}/migration.sql`,
      );
      return 0;
    }
    case "generate":
      await runPrismaGenerate({ cwd, args: rest });
      return 0;
    case "help":
    case "--help":
    case "-h":
      console.log(USAGE);
      return 0;
    default:
      console.error(command === undefined ? USAGE : `arena-db: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`arena-db: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
