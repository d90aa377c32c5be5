import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { chown, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** PostgreSQL refuses to run as root, and so does PgBouncer: as root, they run as `postgres`. */
export const RUNS_AS_ROOT = process.getuid?.() === 0;
const SERVICE_USER = "postgres";

/** PG_BIN_DIR, else the newest Debian PostgreSQL installed (`/usr/lib/postgresql/<major>/bin`). */
export function postgresBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = "/usr/lib/postgresql";
  const majors = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  if (majors.length === 0) throw new Error(`no PostgreSQL under ${root} (set PG_BIN_DIR)`);
  return path.join(root, majors[0]!, "bin");
}

/** Runs a PostgreSQL tool (as `postgres` when this process is root); its output on failure. */
export async function runAsService(command: string, args: readonly string[], timeoutMs = 60_000) {
  const [file, argv] = RUNS_AS_ROOT
    ? ["runuser", ["-u", SERVICE_USER, "--", command, ...args]]
    : [command, [...args]];
  try {
    return await run(file, argv, { timeout: timeoutMs });
  } catch (err) {
    const { stderr = "", stdout = "" } = err as { stderr?: string; stdout?: string };
    throw new Error(`${path.basename(command)} failed: ${(err as Error).message}\n${stdout}${stderr}`);
  }
}

/** A scratch directory the service user owns (its data directories, sockets and logs go in it). */
export async function serviceScratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  if (RUNS_AS_ROOT) {
    const { stdout } = await run("id", ["-u", SERVICE_USER]);
    const { stdout: gid } = await run("id", ["-g", SERVICE_USER]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  return dir;
}
