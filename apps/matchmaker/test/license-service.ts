import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@arena/database";

const licenseApp = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "license");
const ADMIN_TOKEN = "matchmaker-test-admin-token";

/**
 * A port below Linux's ephemeral range (32768–60999), which the suites running meanwhile use by the
 * thousand (every supertest request binds port 0); random, and checked bindable.
 */
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 12_000 + Math.floor(Math.random() * 6_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (bound) {
      await new Promise((r) => server.close(r));
      return port;
    }
  }
  throw new Error("no free port found between 12000 and 18000");
}

/**
 * The real license service, built and run as its own process on a database of its own, so the
 * matchmaker's license handling is tested against exactly what a self-hoster talks to.
 */
export async function startLicenseService() {
  const database = await createTestDatabase({
    schemaPath: join(licenseApp, "prisma", "schema.prisma"),
    migrationsDir: join(licenseApp, "prisma", "migrations"),
    prefix: "arena_test_mm_license",
  });
  let port = await freePort();
  let url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  /** Starts the service process; does nothing while it runs. */
  async function start(): Promise<void> {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) return;
    child = spawn(process.execPath, [join(licenseApp, "dist", "main.js")], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: database.url,
        ADMIN_TOKEN,
        SIGNING_KEY_SECRET: "matchmaker-test-signing-key-secret-0123456789",
        LEASE_TTL_SECONDS: "600",
        MAIL_DIR: join(licenseApp, ".dev", "test-mail"),
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`license service exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${url}/readyz`)).ok) {
          // The port came from freePort: with many suites starting servers at once, another
          // process may have bound it first and answered. Ours then exits (EADDRINUSE) at once.
          await new Promise((r) => setTimeout(r, 300));
          if (child.exitCode !== null) throw new PortTakenError();
          return;
        }
      } catch (err) {
        if (err instanceof PortTakenError) throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("license service did not become ready");
  }

  /** The first start: on another port when the chosen one turned out to be taken. */
  async function startOnAFreePort(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await start();
      } catch (err) {
        if (!(err instanceof PortTakenError) || attempt === 3) throw err;
        port = await freePort();
        url = `http://127.0.0.1:${port}`;
      }
    }
  }

  async function stop(): Promise<void> {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }

  async function admin(method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? null : ((await res.json()) as Record<string, string>);
  }

  await startOnAFreePort();
  return {
    url,
    start,
    stop,
    admin,
    async close() {
      await stop();
      await database.drop();
    },
  };
}

class PortTakenError extends Error {
  constructor() {
    super("the license service exited right after its port answered: another process holds that port");
  }
}
