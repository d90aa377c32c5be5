#!/usr/bin/env node
// The two developer commands, runnable with nothing but Node.js and npm:
//   npm start  → install, build, migrate, then run the whole platform in the foreground
//   npm test   → install, build, then every unit and integration test
// pnpm comes from npm (npx) when it is not installed; corepack is not needed.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pnpmVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1];
const devDir = join(root, ".dev");

function pnpmCommand() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (probe.status === 0 && probe.stdout.trim() === pnpmVersion) return ["pnpm"];
  return ["npx", "--yes", `pnpm@${pnpmVersion}`];
}

function run(cmd, args, env = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const pnpm = pnpmCommand();
const pn = (...args) => run(pnpm[0], [...pnpm.slice(1), ...args]);

function prepare() {
  pn("install", ...(process.env.CI ? ["--frozen-lockfile"] : []));
  pn("build");
}

/** Each app, its port and its environment for local development. */
function apps(secrets) {
  return [
    {
      name: "license",
      port: 8082,
      env: {
        PORT: "8082",
        ADMIN_TOKEN: secrets.adminToken,
        SIGNING_KEY_SECRET: secrets.signingKeySecret,
        MAIL_DIR: join(devDir, "mail"),
      },
    },
    {
      name: "matchmaker",
      port: 8000,
      env: { PORT: "8000", LICENSE_URL: "http://127.0.0.1:8082" },
      nodeFlags: ["--max-semi-space-size=64"],
      needsLicense: true,
    },
    {
      name: "stats",
      port: 8081,
      env: { PORT: "8081", SERVICE_TOKEN: secrets.serviceToken },
    },
    {
      name: "gateway",
      port: 8080,
      env: {
        PORT: "8080",
        ADMIN_TOKEN: secrets.adminToken,
        SIGNING_KEY_SECRET: secrets.signingKeySecret,
        SERVICE_TOKEN: secrets.serviceToken,
        STATS_URL: "http://127.0.0.1:8081",
      },
    },
  ];
}

function loadSecrets() {
  mkdirSync(devDir, { recursive: true });
  const file = join(devDir, "secrets.json");
  const secrets = existsSync(file)
    ? JSON.parse(readFileSync(file, "utf8"))
    : {
        adminToken: `dev_${randomBytes(24).toString("hex")}`,
        signingKeySecret: randomBytes(32).toString("hex"),
      };
  // Added with the gateway: older .dev/secrets.json files get it on the next start.
  secrets.serviceToken ??= `svc_${randomBytes(24).toString("hex")}`;
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

async function waitReady(app, children) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (children.get(app.name)?.exitCode !== null) throw new Error(`${app.name} exited during start-up`);
    try {
      const res = await fetch(`http://127.0.0.1:${app.port}/livez`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${app.name} did not become live on port ${app.port}`);
}

/** A development license (advanced edition), created once and kept in .dev/secrets.json. */
async function devLicense(secrets) {
  if (secrets.licenseKey) {
    const res = await fetch("http://127.0.0.1:8082/v1/licenses/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ licenseKey: secrets.licenseKey }),
    });
    if (res.ok) return secrets.licenseKey;
  }
  const res = await fetch("http://127.0.0.1:8082/admin/licenses", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secrets.adminToken}` },
    body: JSON.stringify({ name: "Local development", email: "dev@arena.localhost", edition: "advanced" }),
  });
  if (!res.ok) throw new Error(`could not create the development license: ${res.status} ${await res.text()}`);
  secrets.licenseKey = (await res.json()).licenseKey;
  writeFileSync(join(devDir, "secrets.json"), JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets.licenseKey;
}

/** A development tenant, app client and game-server user on the gateway, created once. */
async function devTenant(secrets) {
  const admin = { "content-type": "application/json", authorization: `Bearer ${secrets.adminToken}` };
  const post = (path, body) =>
    fetch(`http://127.0.0.1:8080${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) });
  if (!secrets.gatewayClientId) {
    const tenant = await post("/admin/tenants", { tenantId: "dev", name: "Local development" });
    if (!tenant.ok && tenant.status !== 409)
      throw new Error(`could not create the dev tenant: ${tenant.status}`);
    const client = await post("/admin/tenants/dev/clients", { name: "local game servers" });
    if (!client.ok)
      throw new Error(`could not create the dev app client: ${client.status} ${await client.text()}`);
    secrets.gatewayClientId = (await client.json()).clientId;
    secrets.gatewayPassword = randomBytes(12).toString("hex");
    // Usernames are unique across tenants and kept in the database: a new name per secrets file.
    secrets.gatewayUsername = `dev-server-${randomBytes(3).toString("hex")}`;
    const user = await post("/admin/tenants/dev/users", {
      username: secrets.gatewayUsername,
      password: secrets.gatewayPassword,
      role: "admin",
    });
    if (!user.ok) throw new Error(`could not create the dev user: ${user.status} ${await user.text()}`);
    writeFileSync(join(devDir, "secrets.json"), JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return {
    clientId: secrets.gatewayClientId,
    username: secrets.gatewayUsername,
    password: secrets.gatewayPassword,
  };
}

async function start() {
  prepare();
  pn("db:migrate");
  const secrets = loadSecrets();
  const children = new Map();
  let stopping = false;
  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) if (child.exitCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => process.exit(code), 15_000);
    timer.unref();
    Promise.all(
      [...children.values()].map((c) => (c.exitCode === null ? new Promise((r) => c.once("exit", r)) : null)),
    ).then(() => process.exit(code));
  };
  process.on("SIGINT", () => stopAll(0));
  process.on("SIGTERM", () => stopAll(0));

  for (const app of apps(secrets)) {
    const env = { ...process.env, ...app.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "info" };
    if (app.needsLicense) env.LICENSE_KEY = await devLicense(secrets);
    const child = spawn(
      process.execPath,
      [...(app.nodeFlags ?? []), join(root, "apps", app.name, "dist", "main.js")],
      {
        cwd: join(root, "apps", app.name),
        env,
        stdio: "inherit",
      },
    );
    children.set(app.name, child);
    child.on("exit", (code, signal) => {
      if (!stopping) {
        console.error(`${app.name} exited (${signal ?? code}); stopping the platform`);
        stopAll(1);
      }
    });
    await waitReady(app, children);
  }
  const dev = await devTenant(secrets);
  console.log(`
Arena is running (Ctrl-C stops everything):
  matchmaker  http://127.0.0.1:8000   POST /matchmaking/basic, /matchmaking/advanced
  license     http://127.0.0.1:8082   POST /v1/registrations, /v1/licenses/validate
  admin token ${secrets.adminToken}
  license key ${secrets.licenseKey} (advanced edition)
  mail        ${join(devDir, "mail")} (development mail transport)
  gateway     http://127.0.0.1:8080   POST /auth, hosted API, /docs
  stats       http://127.0.0.1:8081   internal: only the gateway calls it (SERVICE_TOKEN)
  login       ClientId ${dev.clientId}  USERNAME ${dev.username}  PASSWORD ${dev.password} (tenant dev, role admin)
`);
}

const command = process.argv[2];
if (command === "test") {
  prepare();
  pn("exec", "turbo", "run", "test");
  // After every other suite: the images replayed and run, docker-compose.yml checked (slow).
  pn("--filter", "@arena/e2e", "run", "test:system");
} else if (command === "start") {
  start().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
} else {
  console.error("usage: node scripts/platform.mjs start|test");
  process.exit(2);
}
