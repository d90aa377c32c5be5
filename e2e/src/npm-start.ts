import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "@arena/service-kit/testing";
import pg from "pg";
import { BASE_PORTS } from "../../scripts/platform-wiring.mjs";

// `npm start` (scripts/platform.mjs start) run as a developer runs it, beside any other platform on
// this machine: its own port offset, database prefix and dev directory. e2e/test/start.test.ts
// checks the start itself; e2e/test/readme-blocks.test.ts runs the READMEs against what it starts.

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const serverUrl = process.env.TEST_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** An offset that puts all four apps on free ports, so this platform runs beside any other. */
export async function freeOffset(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Ports 18000–30082: below Linux's ephemeral range, which other suites bind by the thousand.
    const offset = 10_000 + Math.floor(Math.random() * 12_000);
    const free = await Promise.all(Object.values(BASE_PORTS).map((p) => portIsFree(p + offset)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error("no free port range found");
}

export interface StartRun {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node scripts/platform.mjs start ...args` with `devDir` as its dev dir and the environment given. */
export function spawnStart(args: string[], devDir: string, env: Record<string, string>): StartRun {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ARENA_DEV_DIR: devDir, ...env };
  // Jest's own flags and any service settings of this shell are not what a developer's start sees.
  for (const name of ["NODE_OPTIONS", "REDIS_KEY_PREFIX", "HOST", "PORT"]) delete childEnv[name];
  if (!env.DATABASE_URL) childEnv.DATABASE_URL = serverUrl;
  const child = spawn(process.execPath, [join(root, "scripts", "platform.mjs"), "start", ...args], {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exit };
}

/** Resolves with the whole banner once its last line is out; rejects if the platform exits first. */
export function banner(run: StartRun, timeoutMs = 100_000): Promise<string> {
  return eventually(
    () => {
      if (/^Ctrl-C stops everything.*\n/m.test(run.output())) return run.output();
      if (run.child.exitCode !== null)
        throw new Error(`start exited ${run.child.exitCode}:\n${run.output()}`);
      return undefined;
    },
    { timeoutMs, everyMs: 100, what: () => `the banner:\n${run.output()}` },
  );
}

/** Ctrl-C, as a developer stops it; SIGKILL if it is not gone within 20 s. */
export async function interrupt(run: StartRun): Promise<void> {
  if (run.child.exitCode !== null || run.child.signalCode !== null) return;
  run.child.kill("SIGINT");
  const stopped = await Promise.race([run.exit, new Promise((r) => setTimeout(() => r(null), 20_000))]);
  if (stopped === null) run.child.kill("SIGKILL");
}

export async function dropDatabases(names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Deletes the run's Redis keys with redis-cli where it is installed (it comes with redis-server). */
export function dropRedisKeys(prefix: string): void {
  const url = process.env.REDIS_URL || "redis://127.0.0.1:6379";
  const keys = spawnSync("redis-cli", ["-u", url, "--scan", "--pattern", `${prefix}*`], { encoding: "utf8" });
  if (keys.status !== 0) return;
  const list = keys.stdout.split("\n").filter(Boolean);
  for (let i = 0; i < list.length; i += 500)
    spawnSync("redis-cli", ["-u", url, "unlink", ...list.slice(i, i + 500)]);
}
