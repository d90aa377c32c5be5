// `pnpm lint:migrations`: squawk (the PostgreSQL migration linter) over every app's migrations,
// with the rules and the released baseline in .squawk.toml. A migration that locks a busy table
// without a timeout, rewrites it, or breaks the code still running during a rolling deploy fails
// here before it reaches a database (docs/operations.md, "Upgrades without downtime").
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The paths .squawk.toml's `excluded_paths` names (quoted strings inside its brackets). */
function baseline() {
  const toml = readFileSync(join(root, ".squawk.toml"), "utf8");
  const list = /excluded_paths\s*=\s*\[([^\]]*)\]/.exec(toml)?.[1] ?? "";
  return new Set([...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]));
}

function migrationFiles() {
  const files = [];
  for (const app of readdirSync(join(root, "apps"))) {
    const dir = join("apps", app, "prisma", "migrations");
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) files.push(`${dir}/${entry.name}/migration.sql`);
    }
  }
  return files.sort();
}

const released = baseline();
const toLint = migrationFiles().filter((file) => !released.has(file));
if (toLint.length === 0) {
  console.log("lint:migrations: every migration is in the released baseline; nothing new to lint");
  process.exit(0);
}
const squawk = spawnSync("squawk", ["--config", ".squawk.toml", ...toLint], { cwd: root, stdio: "inherit" });
if (squawk.error) throw squawk.error;
console.log(`lint:migrations: ${toLint.length} migration(s) checked`);
process.exit(squawk.status ?? 1);
