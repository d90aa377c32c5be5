import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@arena/database";
import { freePort } from "@arena/service-kit/testing";
import {
  type AppName,
  appEnvironment,
  type DatabaseApp,
  type PlatformWiring,
} from "../../scripts/platform-wiring.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const appDir = (app: string) => join(root, "apps", app);

export interface AppProcess {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
  /** The environment the process was started with (a replica starts from a copy). */
  env: Record<string, string>;
  /** Starts the process again (same port, same environment) after a stop or a kill. */
  restart(): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Runs `apps/<name>/dist/main.js` as its own process; resolves once `/readyz` answers 200. */
async function startApp(name: string, env: Record<string, string>): Promise<AppProcess> {
  const port = Number(env.PORT);
  const url = `http://127.0.0.1:${port}`;
  const proc: AppProcess = {
    name,
    url,
    port,
    env,
    child: undefined as unknown as ChildProcess,
    async restart() {
      let output = "";
      const child = spawn(process.execPath, [join(appDir(name), "dist", "main.js")], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-8000);
        if (process.env.E2E_LOG_LEVEL) process.stderr.write(`[${name}] ${chunk}`);
      };
      child.stdout?.on("data", keep);
      child.stderr?.on("data", keep);
      proc.child = child;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
        try {
          if ((await fetch(`${url}/readyz`)).ok) return;
        } catch {}
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill("SIGKILL");
      throw new Error(`${name} was not ready within 60 s:\n${output}`);
    },
    async stop(signal = "SIGTERM") {
      const child = proc.child;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    },
  };
  await proc.restart();
  return proc;
}

export interface PlatformOptions {
  matchmakingIntervalMs?: number;
  /** The Redis every app uses (default: the shared one, each platform under its own key prefix). */
  redisUrl?: string;
  /** The PostgreSQL server the apps' databases are created on (default: TEST_DATABASE_URL's). */
  databaseServerUrl?: string;
  /** Stats processes on the same database and Redis, each running the loop (default 1). */
  statsReplicas?: number;
  /** Extra environment per app. */
  env?: Partial<Record<AppName, Record<string, string>>>;
  /** Extra environment of one stats replica (0 is the one the gateway calls). */
  statsEnv?: (replica: number) => Record<string, string>;
}

export interface Platform {
  license: AppProcess;
  matchmaker: AppProcess;
  /** The stats replica the gateway calls: `statsReplicas[0]`. */
  stats: AppProcess;
  statsReplicas: AppProcess[];
  gateway: AppProcess;
  /** Starts one more process of an app (same environment, a port of its own, `env` on top). */
  startReplica(app: AppProcess, env?: Record<string, string>): Promise<AppProcess>;
  adminToken: string;
  redisKeyPrefix: string;
  /** Stats' database, for checks the API cannot make (no player in two matches). */
  statsDatabaseUrl: string;
  close(): Promise<void>;
}

/**
 * The whole platform as four separate processes of the built apps, each on a database of its
 * own and one Redis key prefix, wired as `npm start` wires them (scripts/platform-wiring.mjs):
 * stats calls the matchmaker, the matchmaker holds a license from the license service, the
 * gateway fronts stats. Each app's port and database are added to the wiring as it starts.
 */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const adminToken = `e2e-admin-${randomBytes(12).toString("hex")}`;
  const redisKeyPrefix = `arena_e2e_${randomBytes(4).toString("hex")}:`;
  const ports: PlatformWiring["ports"] = {};
  const databaseUrls: Partial<Record<DatabaseApp, string>> = {};
  const wiring: PlatformWiring = {
    ports,
    secrets: {
      adminToken,
      serviceToken: `e2e-service-${randomBytes(12).toString("hex")}`,
      signingKeySecret: `e2e-signing-${randomBytes(24).toString("hex")}`,
    },
    databaseUrls,
    redisUrl: options.redisUrl,
    redisKeyPrefix,
    mailDir: join(root, "e2e", ".mail"),
    host: "127.0.0.1",
    logLevel: process.env.E2E_LOG_LEVEL ?? "warn",
  };
  /** The app's environment on this platform, on a free port of its own, `extra` on top. */
  const environment = async (app: AppName, extra: Record<string, string> = {}) => {
    ports[app] = await freePort();
    return { ...appEnvironment(app, wiring), ...extra };
  };
  const databases: TestDatabase[] = [];
  const database = async (app: DatabaseApp) => {
    const db = await createTestDatabase({
      schemaPath: join(appDir(app), "prisma", "schema.prisma"),
      migrationsDir: join(appDir(app), "prisma", "migrations"),
      prefix: `arena_e2e_${app}`,
      ...(options.databaseServerUrl ? { baseUrl: options.databaseServerUrl } : {}),
    });
    databases.push(db);
    databaseUrls[app] = db.url;
    return db.url;
  };
  const started: AppProcess[] = [];
  try {
    await database("license");
    const license = await startApp("license", await environment("license", options.env?.license));
    started.push(license);
    const created = await fetch(`${license.url}/admin/licenses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ name: "e2e", email: "e2e@arena.localhost", edition: "advanced" }),
    });
    if (!created.ok) throw new Error(`license creation answered ${created.status}`);
    wiring.secrets.licenseKey = ((await created.json()) as { licenseKey: string }).licenseKey;
    const matchmaker = await startApp(
      "matchmaker",
      await environment("matchmaker", {
        // These tests are about behaviour, not speed: the production warm-up (eight 10k-ticket queues
        // per round) took 17–86 s in the warm-up test beside the other suites in CI.
        WARM_UP_TICKETS: "1000",
        ...options.env?.matchmaker,
      }),
    );
    started.push(matchmaker);
    const statsDatabaseUrl = await database("stats");
    const statsReplicas: AppProcess[] = [];
    for (let replica = 0; replica < (options.statsReplicas ?? 1); replica++) {
      const stats = await startApp(
        "stats",
        await environment("stats", {
          MATCHMAKING_INTERVAL_MS: String(options.matchmakingIntervalMs ?? 200),
          ...options.env?.stats,
          ...options.statsEnv?.(replica),
        }),
      );
      started.push(stats);
      statsReplicas.push(stats);
    }
    const stats = statsReplicas[0]!;
    // The gateway calls the first replica.
    ports.stats = stats.port;
    await database("gateway");
    const gateway = await startApp("gateway", await environment("gateway", options.env?.gateway));
    started.push(gateway);
    return {
      license,
      matchmaker,
      stats,
      statsReplicas,
      gateway,
      async startReplica(app, env = {}) {
        const replica = await startApp(app.name, { ...app.env, PORT: String(await freePort()), ...env });
        started.push(replica);
        return replica;
      },
      adminToken,
      redisKeyPrefix,
      statsDatabaseUrl,
      async close() {
        for (const app of [...started].reverse()) await app.stop().catch(() => {});
        for (const db of databases) await db.drop().catch(() => {});
      },
    };
  } catch (err) {
    for (const app of started.reverse()) await app.stop("SIGKILL").catch(() => {});
    for (const db of databases) await db.drop().catch(() => {});
    throw err;
  }
}
