import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@arena/database/testing";
import { eventually, freePort } from "@arena/service-kit/testing";
import {
  type AppName,
  appEnvironment,
  type DatabaseApp,
  type PlatformWiring,
} from "../../scripts/platform-wiring.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const appDir = (app: string, from = root) => join(from, "apps", app);

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

/**
 * Runs `apps/<name>/dist/main.js` of the checkout at `from` (this one by default; another release's
 * in the upgrade tests) as its own process; resolves once `/readyz` answers 200.
 */
async function startApp(name: string, env: Record<string, string>, from = root): Promise<AppProcess> {
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
      const child = spawn(process.execPath, [join(appDir(name, from), "dist", "main.js")], {
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
      await eventually(
        () => {
          if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
          return fetch(`${url}/readyz`).then(
            (res) => res.ok,
            () => false,
          );
        },
        { timeoutMs: 60_000, everyMs: 100, what: () => `${name} to be ready:\n${output}` },
      ).catch((err) => {
        child.kill("SIGKILL");
        throw err;
      });
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
  /** Redis Cluster seeds (`host:port,...`): stats and the gateway use the cluster instead. */
  redisClusterNodes?: string;
  /** The PostgreSQL server the apps' databases are created on (default: TEST_DATABASE_URL's). */
  databaseServerUrl?: string;
  /** Stats processes on the same database and Redis, each running the loop (default 1). */
  statsReplicas?: number;
  /** Extra environment per app. */
  env?: Partial<Record<AppName, Record<string, string>>>;
  /** Extra environment of one stats replica (0 is the one the gateway calls). */
  statsEnv?: (replica: number) => Record<string, string>;
  /**
   * The checkout each app runs from (default this one): another release's built tree runs that
   * release's code against the databases this checkout's migrations made.
   */
  appRoots?: Partial<Record<AppName, string>>;
  /**
   * How an app reaches its database, given the database's direct URL (where it was created and
   * migrated): environment on top of the wiring's, e.g. a DATABASE_URL through PgBouncer.
   */
  databaseEnv?: (app: DatabaseApp, databaseUrl: string) => Record<string, string>;
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
  const launch = new PlatformLaunch(options);
  try {
    await launch.database("license");
    const license = await launch.start("license", options.env?.license);
    launch.wiring.secrets.licenseKey = await createLicenseKey(license.url, launch.adminToken);
    const matchmaker = await launch.start("matchmaker", {
      // These tests are about behaviour, not speed: the production warm-up (eight 10k-ticket queues
      // per round) took 17–86 s in the warm-up test beside the other suites in CI.
      WARM_UP_TICKETS: "1000",
      ...options.env?.matchmaker,
    });
    const statsDatabaseUrl = await launch.database("stats");
    const statsReplicas: AppProcess[] = [];
    for (let replica = 0; replica < (options.statsReplicas ?? 1); replica++) {
      statsReplicas.push(
        await launch.start("stats", {
          MATCHMAKING_INTERVAL_MS: String(options.matchmakingIntervalMs ?? 200),
          ...options.env?.stats,
          ...options.statsEnv?.(replica),
        }),
      );
    }
    const stats = statsReplicas[0]!;
    // The gateway calls the first replica.
    launch.ports.stats = stats.port;
    await launch.database("gateway");
    const gateway = await launch.start("gateway", options.env?.gateway);
    return {
      license,
      matchmaker,
      stats,
      statsReplicas,
      gateway,
      startReplica: (app, env = {}) => launch.startReplica(app, env),
      adminToken: launch.adminToken,
      redisKeyPrefix: launch.redisKeyPrefix,
      statsDatabaseUrl,
      close: () => launch.close(),
    };
  } catch (err) {
    await launch.abort();
    throw err;
  }
}

/** An advanced-edition license from the license service's admin API: its key. */
async function createLicenseKey(licenseUrl: string, adminToken: string): Promise<string> {
  const created = await fetch(`${licenseUrl}/admin/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ name: "e2e", email: "e2e@arena.localhost", edition: "advanced" }),
  });
  if (!created.ok) throw new Error(`license creation answered ${created.status}`);
  return ((await created.json()) as { licenseKey: string }).licenseKey;
}

/**
 * One platform as it starts and runs: its wiring, filled in as each app gets a port and a
 * database, and the processes and databases to stop and drop at the end. A test of one app on its
 * own starts just that app with it (its database first, if it has one).
 */
export class PlatformLaunch {
  readonly adminToken = `e2e-admin-${randomBytes(12).toString("hex")}`;
  readonly redisKeyPrefix = `arena_e2e_${randomBytes(4).toString("hex")}:`;
  readonly ports: PlatformWiring["ports"] = {};
  private readonly databaseUrls: Partial<Record<DatabaseApp, string>> = {};
  readonly wiring: PlatformWiring;
  private readonly databases: TestDatabase[] = [];
  private readonly started: AppProcess[] = [];

  constructor(private readonly options: PlatformOptions) {
    this.wiring = {
      ports: this.ports,
      secrets: {
        adminToken: this.adminToken,
        serviceToken: `e2e-service-${randomBytes(12).toString("hex")}`,
        signingKeySecret: `e2e-signing-${randomBytes(24).toString("hex")}`,
      },
      databaseUrls: this.databaseUrls,
      redisUrl: options.redisUrl,
      redisClusterNodes: options.redisClusterNodes,
      redisKeyPrefix: this.redisKeyPrefix,
      mailDir: join(root, "e2e", ".mail"),
      host: "127.0.0.1",
      logLevel: process.env.E2E_LOG_LEVEL ?? "warn",
    };
  }

  /** A fresh database for the app, migrated; the wiring gives it to the app. */
  async database(app: DatabaseApp): Promise<string> {
    const db = await createTestDatabase({
      schemaPath: join(appDir(app), "prisma", "schema.prisma"),
      migrationsDir: join(appDir(app), "prisma", "migrations"),
      prefix: `arena_e2e_${app}`,
      ...(this.options.databaseServerUrl ? { baseUrl: this.options.databaseServerUrl } : {}),
    });
    this.databases.push(db);
    this.databaseUrls[app] = db.url;
    return db.url;
  }

  /** Starts the app with its environment on this platform, on a free port of its own, `extra` on top. */
  async start(app: AppName, extra: Record<string, string> = {}): Promise<AppProcess> {
    this.ports[app] = await freePort();
    const direct = this.databaseUrls[app as DatabaseApp];
    const database = direct ? this.options.databaseEnv?.(app as DatabaseApp, direct) : undefined;
    const proc = await startApp(
      app,
      { ...appEnvironment(app, this.wiring), ...database, ...extra },
      this.options.appRoots?.[app],
    );
    this.started.push(proc);
    return proc;
  }

  async startReplica(app: AppProcess, env: Record<string, string>): Promise<AppProcess> {
    const from = this.options.appRoots?.[app.name as AppName];
    const replica = await startApp(app.name, { ...app.env, PORT: String(await freePort()), ...env }, from);
    this.started.push(replica);
    return replica;
  }

  async close(): Promise<void> {
    for (const app of [...this.started].reverse()) await app.stop().catch(() => {});
    for (const db of this.databases) await db.drop().catch(() => {});
  }

  /** After a failed start: kills what runs and drops the databases. */
  async abort(): Promise<void> {
    for (const app of this.started.reverse()) await app.stop("SIGKILL").catch(() => {});
    for (const db of this.databases) await db.drop().catch(() => {});
  }
}
