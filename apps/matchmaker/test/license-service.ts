import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@arena/database/testing";
import { eventually, freePort } from "@arena/service-kit/testing";

const licenseApp = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "license");
const ADMIN_TOKEN = "matchmaker-test-admin-token";

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
  // Its own range, below the ephemeral one (see freePort) and apart from the e2e suite's.
  const port = await freePort(12_000, 6_000);
  const url = `http://127.0.0.1:${port}`;
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
    const started = child;
    await eventually(
      () => {
        if (started.exitCode !== null) throw new Error(`license service exited with ${started.exitCode}`);
        return fetch(`${url}/readyz`).then(
          (res) => res.ok,
          () => false,
        );
      },
      { timeoutMs: 20_000, everyMs: 100, what: "the license service to become ready" },
    );
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

  await start();
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
