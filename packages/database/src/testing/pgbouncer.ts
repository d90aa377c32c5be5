import { type ChildProcess, spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { eventually, freePort } from "@arena/service-kit/testing";
import pg from "pg";
import { RUNS_AS_ROOT, serviceScratchDir } from "./postgres-tools.js";

/** PgBouncer's pooling modes: a server connection per client, per transaction, or per statement. */
export type PgBouncerPoolMode = "session" | "transaction" | "statement";

export interface StartPgBouncerOptions {
  /** The PostgreSQL server behind it (host and port are used; trust auth, user `postgres`). */
  serverUrl: string;
  /** The mode of every database not listed in `databases` (served through the `*` fallback). */
  poolMode?: PgBouncerPoolMode;
  /** Aliases with a mode of their own: `{ stats_tx: { dbname: "arena_stats", poolMode: "transaction" } }`. */
  databases?: Record<string, { dbname?: string; poolMode?: PgBouncerPoolMode }>;
  /** Server connections per database and user (PgBouncer's `default_pool_size`). */
  poolSize?: number;
  /** The executable (default PGBOUNCER_BIN, else Debian's /usr/sbin/pgbouncer). */
  bin?: string;
}

/** One row of the admin console's `SHOW POOLS`, the columns the tests read. */
export interface PgBouncerPool {
  database: string;
  user: string;
  cl_active: string;
  sv_active: string;
  sv_idle: string;
  sv_used: string;
  pool_mode: string;
}

export interface PgBouncer {
  port: number;
  /** A connection string for `database` (an alias, or any database through the fallback). */
  url(database: string): string;
  /** `SHOW POOLS` on the admin console. */
  pools(): Promise<PgBouncerPool[]>;
  /** Stops it (an immediate shutdown) and removes its files; safe to call more than once. */
  stop(): Promise<void>;
}

function iniFile(opts: StartPgBouncerOptions, port: number, dir: string): string {
  const server = new URL(opts.serverUrl);
  const upstream = `host=${server.hostname} port=${server.port || 5432}`;
  const aliases = Object.entries(opts.databases ?? {}).map(
    ([alias, db]) =>
      `${alias} = ${upstream} dbname=${db.dbname ?? alias}${db.poolMode ? ` pool_mode=${db.poolMode}` : ""}`,
  );
  return [
    "[databases]",
    ...aliases,
    `* = ${upstream}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    `unix_socket_dir = ${dir}`,
    "auth_type = trust",
    `auth_file = ${path.join(dir, "users.txt")}`,
    "admin_users = postgres",
    `pool_mode = ${opts.poolMode ?? "session"}`,
    `default_pool_size = ${opts.poolSize ?? 20}`,
    "max_client_conn = 1000",
    // node-postgres and Prisma's adapter send none of these, psql and pgbench may.
    "ignore_startup_parameters = extra_float_digits,options",
    "",
  ].join("\n");
}

async function adminQuery<T>(port: number, sql: string): Promise<T[]> {
  // The admin console speaks the simple-query protocol only: a query without values uses it.
  const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/pgbouncer` });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Runs Debian's PgBouncer (1.18) in the foreground as a child of this process, in front of
 * `serverUrl`, and resolves once its admin console answers (well under a second).
 */
export async function startPgBouncer(opts: StartPgBouncerOptions): Promise<PgBouncer> {
  const dir = await serviceScratchDir("arena-pgbouncer-");
  const port = await freePort();
  const ini = path.join(dir, "pgbouncer.ini");
  await writeFile(path.join(dir, "users.txt"), '"postgres" ""\n');
  await writeFile(ini, iniFile(opts, port, dir));
  const bin = opts.bin ?? process.env.PGBOUNCER_BIN ?? "/usr/sbin/pgbouncer";
  const child = spawn(bin, RUNS_AS_ROOT ? ["-u", "postgres", ini] : [ini], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await kill(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await untilAnswers(child, port, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  const server = new URL(opts.serverUrl);
  return {
    port,
    url(database) {
      const url = new URL(server.toString());
      url.host = `127.0.0.1:${port}`;
      url.pathname = `/${encodeURIComponent(database)}`;
      return url.toString();
    },
    pools: () => adminQuery<PgBouncerPool>(port, "SHOW POOLS"),
    stop,
  };
}

/** Until the admin console answers: at once if the child exits, with its output after 10 s. */
async function untilAnswers(child: ChildProcess, port: number, output: () => string): Promise<void> {
  let refusal = "";
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${output()}`);
      return adminQuery(port, "SHOW VERSION").then(
        () => true,
        (err: Error) => {
          refusal = err.message;
          return false;
        },
      );
    },
    { timeoutMs: 10_000, everyMs: 25, what: () => `pgbouncer to answer (${refusal})\n${output()}` },
  );
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  // SIGTERM is PgBouncer 1.18's immediate shutdown (SIGINT would wait for every client to leave).
  child.kill("SIGTERM");
  await exited;
}
