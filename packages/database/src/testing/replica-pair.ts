import { rm } from "node:fs/promises";
import path from "node:path";
import { eventually, freePort } from "@arena/service-kit/testing";
import pg from "pg";
import { COMMITTED_WAL_POSITION_SQL } from "../wal-position.js";
import { postgresBinDir, runAsService, serviceScratchDir } from "./postgres-tools.js";

/** A PostgreSQL primary and a hot standby streaming from it, both on loopback, for one test run. */
export interface ReplicaPair {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` of the primary (trust auth). */
  primaryUrl: string;
  /** The same of the standby (read-only). */
  replicaUrl: string;
  /** Stops applying WAL on the standby (it keeps receiving): its reads go stale from here. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the standby has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops the standby only (immediate shutdown): a replica outage. */
  stopReplica(): Promise<void>;
  /** Stops both servers at once and removes their files; safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Settings for a throwaway server: durability off (a crash loses a test run, nothing else), the
 * WAL a standby needs, its socket in its own directory, loopback only.
 */
function serverOptions(port: number, socketDir: string, extra: readonly string[] = []): string {
  return [
    `-p ${port}`,
    `-k ${socketDir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c wal_level=replica",
    "-c max_wal_senders=4",
    "-c max_connections=200",
    ...extra,
  ].join(" ");
}

async function startServer(bin: string, dataDir: string, options: string): Promise<void> {
  await runAsService(path.join(bin, "pg_ctl"), [
    "-D",
    dataDir,
    "-l",
    `${dataDir}.log`,
    "-o",
    options,
    "-w",
    "start",
  ]);
}

async function stopServer(bin: string, dataDir: string): Promise<void> {
  await runAsService(path.join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]).catch(
    () => {},
  );
}

async function queryOne<T>(url: string, sql: string, values: unknown[] = []): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows[0] as T;
  } finally {
    await client.end();
  }
}

/**
 * `initdb` a primary, `pg_basebackup -R` a standby from it, start both (a few seconds). The
 * standby is a real streaming replica: a row committed on the primary is readable on it within a
 * second. Stop it with `stop()` (in `afterAll`).
 */
export async function startReplicaPair(): Promise<ReplicaPair> {
  const bin = postgresBinDir();
  const dir = await serviceScratchDir("arena-pg-pair-");
  const primaryDir = path.join(dir, "primary");
  const replicaDir = path.join(dir, "replica");
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopServer(bin, replicaDir);
    await stopServer(bin, primaryDir);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await runAsService(path.join(bin, "initdb"), [
      "-D",
      primaryDir,
      "--auth=trust",
      "-U",
      "postgres",
      "--no-sync",
      "--no-instructions",
      "-E",
      "UTF8",
      "--locale=C",
    ]);
    await startServer(bin, primaryDir, serverOptions(primaryPort, dir));
    await runAsService(path.join(bin, "pg_basebackup"), [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      replicaDir,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
      "--no-sync",
    ]);
    await startServer(bin, replicaDir, serverOptions(replicaPort, dir, ["-c hot_standby=on"]));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    ...replayControls(
      `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`,
      `postgresql://postgres@127.0.0.1:${replicaPort}/postgres`,
    ),
    stopReplica: () => stopServer(bin, replicaDir),
    stop,
  };
}

/** The pair's URLs and the standby's replay switches, over short-lived connections. */
function replayControls(primaryUrl: string, replicaUrl: string): Omit<ReplicaPair, "stop" | "stopReplica"> {
  return {
    primaryUrl,
    replicaUrl,
    async pauseReplay() {
      await queryOne(replicaUrl, "SELECT pg_wal_replay_pause()");
      await eventually(
        async () =>
          (await queryOne<{ state: string }>(replicaUrl, "SELECT pg_get_wal_replay_pause_state() AS state"))
            .state === "paused",
        { timeoutMs: 10_000, everyMs: 20, what: "the standby's replay to pause" },
      );
    },
    async resumeReplay() {
      await queryOne(replicaUrl, "SELECT pg_wal_replay_resume()");
    },
    async caughtUp(timeoutMs = 10_000) {
      const { lsn } = await queryOne<{ lsn: string }>(primaryUrl, COMMITTED_WAL_POSITION_SQL);
      await eventually(
        async () =>
          (
            await queryOne<{ done: boolean }>(
              replicaUrl,
              "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done",
              [lsn],
            )
          ).done,
        { timeoutMs, everyMs: 20, what: `the standby to replay up to ${lsn}` },
      );
    },
  };
}
