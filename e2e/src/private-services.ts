import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { eventually, freePort } from "@arena/service-kit/testing";

const run = promisify(execFile);

/** True when a Redis server answers PING on the port. */
function redisPongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString();
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: nothing saved) and starts an empty one on the same port. */
  restartEmpty(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A Redis server of the test's own (`redis-server` on a free port, nothing persisted), so a test
 * can restart it without disturbing the shared Redis other suites use.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    await eventually(() => redisPongs(port), {
      timeoutMs: 20_000,
      everyMs: 50,
      what: "redis-server to come up",
    });
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restartEmpty() {
      await kill();
      await start();
    },
    close: kill,
  };
}

export interface PrivatePostgres {
  /** The server's `postgres` database, for createTestDatabase's `baseUrl`. */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: every connection is closed, the server is down until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function postgresBinDir(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => join(base, v, "bin")).find((dir) => existsSync(join(dir, "initdb")));
  if (!found) throw new Error(`no PostgreSQL server binaries (initdb) under ${base}`);
  return found;
}

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp dir, a free port, trust auth, no fsync),
 * so a test can stop and start it for real. PostgreSQL refuses to run as root: as root the
 * commands run as the `postgres` user.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "arena-e2e-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await run("chown", ["postgres", dir]);
    await chmod(dir, 0o700);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : run(join(bin, tool), args);
  await pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => pg("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  const stop = () => pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
  await start();
  let running = true;
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await stop();
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async close() {
      if (running) await stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
