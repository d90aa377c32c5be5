#!/usr/bin/env node
// The two developer commands, runnable with nothing but Node.js and npm:
//   npm start  → install, build, migrate, then run the whole platform in the foreground
//   npm test   → install, build, then every unit and integration test
// pnpm comes from npm (npx) when it is not installed; corepack is not needed.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pnpmVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1];

function pnpmCommand() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (probe.status === 0 && probe.stdout.trim() === pnpmVersion) return ["pnpm"];
  return ["npx", "--yes", `pnpm@${pnpmVersion}`];
}

function run(cmd, args, env = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const pnpm = pnpmCommand();
const pn = (...args) => run(pnpm[0], [...pnpm.slice(1), ...args]);

function prepare() {
  pn("install", ...(process.env.CI ? ["--frozen-lockfile"] : []));
  pn("build");
}

const command = process.argv[2];
if (command === "test") {
  prepare();
  pn("exec", "turbo", "run", "test");
  // After every other suite: the images replayed and run, docker-compose.yml checked (slow).
  pn("--filter", "@arena/e2e", "run", "test:system");
} else if (command === "start") {
  // scripts/start.mjs: checks, migrations, the apps, the development tenant and the printed commands.
  const { start } = await import("./start.mjs");
  start({ args: process.argv.slice(3), prepare });
} else {
  console.error("usage: node scripts/platform.mjs start [matchmaker] [--no-build] | test");
  process.exit(2);
}
