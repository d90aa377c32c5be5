import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The release a rolling deploy of this checkout replaces, built in a folder of its own, so the
 * upgrade tests can run its apps against the schema this checkout's migrations make and beside
 * this checkout's apps.
 *
 * Which release: the commit before the newest migration of any app was added. That is the code
 * still running while a deploy applies that migration; a release without a new migration changes
 * no schema, and its mixed-version case is the same as this one's. `UPGRADE_BASE_REF` names another
 * (a tag of the release in production, say).
 */

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const RELEASES_DIR = join(root, "e2e", ".releases");

function git(args: string[]): string {
  const result = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** The newest migration folder of any app, as a path from the repository's root. */
export function newestMigration(): string {
  const all: Array<{ name: string; path: string }> = [];
  for (const app of readdirSync(join(root, "apps"))) {
    const dir = join(root, "apps", app, "prisma", "migrations");
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory())
        all.push({ name: entry.name, path: `apps/${app}/prisma/migrations/${entry.name}` });
    }
  }
  all.sort((a, b) => a.name.localeCompare(b.name));
  const newest = all.at(-1);
  if (!newest) throw new Error("no migrations found");
  return newest.path;
}

/** The commit of the release before this checkout's newest migration (see the module comment). */
export function previousReleaseCommit(): string {
  const named = process.env.UPGRADE_BASE_REF?.trim();
  if (named) return git(["rev-parse", "--verify", `${named}^{commit}`]);
  if (git(["rev-parse", "--is-shallow-repository"]) === "true") {
    throw new Error("the upgrade tests need the repository's history: clone without --depth");
  }
  const migration = newestMigration();
  const added = git(["log", "--diff-filter=A", "--format=%H", "-1", "--", migration]);
  // Not committed yet: the release it will follow is this checkout's HEAD.
  if (added === "") return git(["rev-parse", "HEAD"]);
  return git(["rev-parse", `${added}^`]);
}

function run(cmd: string, args: string[], cwd: string): void {
  const result = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true", TURBO_TELEMETRY_DISABLED: "1" },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed in ${cwd}:\n${(result.stdout + result.stderr).slice(-4000)}`,
    );
  }
}

/**
 * The release at `commit`, exported from git, installed from the pnpm store and built; kept in
 * `e2e/.releases/<commit>` for the next run. Its apps run from `<root>/apps/<app>/dist`.
 */
export function buildRelease(commit: string): string {
  const dir = join(RELEASES_DIR, commit);
  const built = join(dir, ".built");
  if (existsSync(built)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run("bash", ["-c", `git -C "${root}" archive --format=tar ${commit} | tar -x -C "${dir}"`], root);
  run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], dir);
  run("pnpm", ["build"], dir);
  writeFileSync(built, `${new Date().toISOString()}\n`);
  return dir;
}
