// `npm start`: the whole platform on this machine, in the foreground (scripts/platform.mjs calls it).
//   node scripts/platform.mjs start [matchmaker] [--no-build]
// Checks PostgreSQL and Redis first, installs and builds (unless --no-build or ARENA_NO_BUILD=1),
// migrates, runs the apps with their logs in <dev dir>/logs, creates a development license, tenant,
// app client and user once (kept in <dev dir>/secrets.json), and prints commands that work as printed.
// `matchmaker` runs only the license service and the matchmaker (PostgreSQL, no Redis).
// Environment: ARENA_PORT_OFFSET (added to every port), ARENA_DATABASE_PREFIX (default arena_: the
// databases are arena_license, arena_stats, arena_gateway), ARENA_DEV_DIR (default .dev),
// DATABASE_URL (the PostgreSQL server; its database name is replaced by each app's), REDIS_URL.
// Every failure is one line on stderr (which app, why, where its log is) and exit code 1.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  APPS,
  appEnvironment,
  BASE_PORTS,
  DATABASE_APPS,
  NODE_FLAGS,
  platformPorts,
} from "./platform-wiring.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

/** A start-up failure whose message is the whole story: printed as one line, no stack. */
class StartError extends Error {}

const onPath = (cmd) =>
  (process.env.PATH ?? "").split(":").some((dir) => dir !== "" && existsSync(join(dir, cmd)));
const asRoot = (cmd) => (process.getuid?.() === 0 ? cmd : `sudo ${cmd}`);
const systemd = () => existsSync("/run/systemd/system") && onPath("systemctl");
const isLocal = (host) => ["127.0.0.1", "localhost", "::1", "0.0.0.0"].includes(host);

/** A path as the user would type it from where they are. */
function shown(path) {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

function parseSettings(args) {
  const unknown = args.filter((a) => a !== "matchmaker" && a !== "--no-build");
  if (unknown.length > 0)
    throw new StartError(
      `unknown argument ${unknown[0]}: usage: node scripts/platform.mjs start [matchmaker] [--no-build]`,
    );
  const offsetText = process.env.ARENA_PORT_OFFSET?.trim() || "0";
  const offset = Number(offsetText);
  const maxOffset = 65535 - Math.max(...Object.values(BASE_PORTS));
  if (!Number.isInteger(offset) || offset < 0 || offset > maxOffset)
    throw new StartError(
      `ARENA_PORT_OFFSET must be a whole number from 0 to ${maxOffset}, not "${offsetText}"`,
    );
  const prefix = process.env.ARENA_DATABASE_PREFIX ?? "arena_";
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix))
    throw new StartError(
      `ARENA_DATABASE_PREFIX must be lower-case letters, digits and _ (at most 41), not "${prefix}"`,
    );
  const serverUrl = parseUrl(
    "DATABASE_URL",
    process.env.DATABASE_URL?.trim() || "postgresql://postgres@127.0.0.1:5432/postgres",
    /^postgres(ql)?:$/,
    5432,
  );
  const redisUrl = parseUrl(
    "REDIS_URL",
    process.env.REDIS_URL?.trim() || "redis://127.0.0.1:6379",
    /^rediss?:$/,
    6379,
  );
  return {
    matchmakerOnly: args.includes("matchmaker"),
    build: !args.includes("--no-build") && process.env.ARENA_NO_BUILD !== "1",
    offset,
    prefix,
    devDir: resolve(root, process.env.ARENA_DEV_DIR?.trim() || ".dev"),
    serverUrl,
    redisUrl,
    redisClusterNodes: process.env.REDIS_CLUSTER_NODES?.trim() || undefined,
    // The apps' default "arena:" for the default prefix; a platform of its own for any other.
    redisKeyPrefix: process.env.REDIS_KEY_PREFIX?.trim() || `${prefix.replace(/_+$/, "") || "arena"}:`,
    host: process.env.HOST?.trim() || "127.0.0.1",
  };
}

function parseUrl(name, text, protocol, defaultPort) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new StartError(`${name} is not a URL: "${text}"`);
  }
  if (!protocol.test(url.protocol)) throw new StartError(`${name} has the wrong scheme: "${url.protocol}"`);
  return {
    url,
    host: url.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1",
    port: Number(url.port || defaultPort),
  };
}

/** The database URL of one app: the configured server, the database named `<prefix><app>`. */
function databaseUrl(settings, app) {
  const url = new URL(settings.serverUrl.url);
  url.pathname = `/${settings.prefix}${app}`;
  return url.toString();
}

/** True when something accepts TCP connections there within `timeoutMs`. */
function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolveReachable) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      clearTimeout(timer);
      socket.destroy();
      resolveReachable(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The command that starts the local PostgreSQL on this kind of machine. */
function postgresStartCommand() {
  const clusters = existsSync("/etc/postgresql")
    ? readdirSync("/etc/postgresql")
        .sort()
        .flatMap((version) =>
          readdirSync(join("/etc/postgresql", version)).map((name) => `${version} ${name}`),
        )
    : [];
  if (clusters.length > 0 && onPath("pg_ctlcluster")) return asRoot(`pg_ctlcluster ${clusters.at(-1)} start`);
  if (systemd()) return "sudo systemctl start postgresql";
  if (onPath("brew")) return "brew services start postgresql";
  if (onPath("docker"))
    return "docker run -d --name arena-postgres -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15";
  return "install PostgreSQL 15 (e.g. apt-get install postgresql) and start it";
}

function redisStartCommand(port) {
  if (onPath("redis-server"))
    return `redis-server --daemonize yes --bind 127.0.0.1 --port ${port} --save "" --appendonly no`;
  if (systemd()) return "sudo systemctl start redis-server";
  if (onPath("brew")) return "brew services start redis";
  if (onPath("docker")) return `docker run -d --name arena-redis -p ${port}:6379 redis:7`;
  return "install Redis 7 (e.g. apt-get install redis-server), then: redis-server --daemonize yes";
}

/** One line per service that does not accept connections, with the command that starts it. */
async function checkServices(settings) {
  const problems = [];
  const services = [
    { name: "PostgreSQL", env: "DATABASE_URL", ...settings.serverUrl, start: () => postgresStartCommand() },
  ];
  // On a Redis Cluster (REDIS_CLUSTER_NODES) the apps report an unreachable one on /readyz.
  if (!settings.matchmakerOnly && !settings.redisClusterNodes)
    services.push({
      name: "Redis",
      env: "REDIS_URL",
      ...settings.redisUrl,
      start: () => redisStartCommand(settings.redisUrl.port),
    });
  const results = await Promise.all(services.map((s) => reachable(s.host, s.port)));
  services.forEach((s, i) => {
    if (results[i]) return;
    const where = `${s.host}:${s.port}`;
    problems.push(
      isLocal(s.host)
        ? `${s.name} is not running on ${where}; start it with: ${s.start()}`
        : `${s.name} is not reachable on ${where} (${s.env}): start it there or point ${s.env} at a running server`,
    );
  });
  return problems;
}

/**
 * How this platform is wired (scripts/platform-wiring.mjs): its apps and ports, and the addresses
 * and secrets their environments come from. `secrets` is the secrets file's object: the
 * development license key it gets later reaches the matchmaker's environment through it.
 */
function wiringFor(settings, secrets) {
  const ports = platformPorts(settings.offset);
  const names = settings.matchmakerOnly ? ["license", "matchmaker"] : APPS;
  return {
    ports: Object.fromEntries(names.map((name) => [name, ports[name]])),
    secrets,
    databaseUrls: Object.fromEntries(DATABASE_APPS.map((app) => [app, databaseUrl(settings, app)])),
    redisUrl: settings.redisUrl.url.toString(),
    redisClusterNodes: settings.redisClusterNodes,
    redisKeyPrefix: settings.redisKeyPrefix,
    mailDir: join(settings.devDir, "mail"),
    host: settings.host,
    logLevel: process.env.LOG_LEVEL?.trim() || "info",
  };
}

/** Each app of the platform, in start order, with its port, environment and Node.js flags. */
function appsFor(wiring) {
  return APPS.filter((name) => wiring.ports[name] !== undefined).map((name) => ({
    name,
    port: wiring.ports[name],
    env: appEnvironment(name, wiring),
    nodeFlags: NODE_FLAGS[name],
    migrates: DATABASE_APPS.includes(name),
  }));
}

function loadSecrets(devDir) {
  mkdirSync(devDir, { recursive: true });
  const file = join(devDir, "secrets.json");
  const secrets = existsSync(file)
    ? JSON.parse(readFileSync(file, "utf8"))
    : {
        adminToken: `dev_${randomBytes(24).toString("hex")}`,
        signingKeySecret: randomBytes(32).toString("hex"),
      };
  // Added with the gateway: older secrets files get it on the next start.
  secrets.serviceToken ??= `svc_${randomBytes(24).toString("hex")}`;
  saveSecrets(devDir, secrets);
  return secrets;
}

function saveSecrets(devDir, secrets) {
  writeFileSync(join(devDir, "secrets.json"), JSON.stringify(secrets, null, 2), { mode: 0o600 });
}

/**
 * fetch with a plain timer: on Node 20 a signal from AbortSignal.any holds its sources weakly, so a
 * garbage collection during the request can drop the timeout and leave the request pending.
 */
async function request(url, init = {}, timeoutMs = 5000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await fetch(url, { ...init, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The most telling message of a log: an app's last error (its JSON log lines), else the last plain
 * message with the indented lines that follow it (a migration job's error and its list).
 */
function lastLogMessage(logPath) {
  let lines;
  try {
    lines = readFileSync(logPath, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
  } catch {
    return undefined;
  }
  const parsed = lines.map((line) => {
    try {
      const entry = JSON.parse(line);
      return { level: entry.level ?? 0, text: entry.err?.message ?? entry.msg ?? line, json: true };
    } catch {
      return { level: 0, text: line, json: false };
    }
  });
  let text = parsed.findLast((e) => e.level >= 50)?.text;
  if (text === undefined && parsed.length > 0 && !parsed.at(-1).json) {
    const start = parsed.findLastIndex((e) => !/^\s/.test(e.text));
    text = parsed
      .slice(Math.max(start, 0))
      .map((e) => e.text)
      .join(" ");
  }
  text ??= parsed.at(-1)?.text;
  return text?.replace(/\s+/g, " ").slice(0, 400);
}

class Platform {
  constructor(settings) {
    this.settings = settings;
    this.logDir = join(settings.devDir, "logs");
    this.children = new Map();
    this.stopping = false;
    /** Set once the banner is out: an exit after that is not a start-up failure. */
    this.running = false;
  }

  logPath(name) {
    return join(this.logDir, `${name}.log`);
  }

  /** `label` names the app; `name` its log (`license`, `license-migrate`). */
  failure(name, what, label = name) {
    const detail = lastLogMessage(this.logPath(name));
    return new StartError(
      `${label} ${what}${detail ? `: ${detail}` : ""} (log: ${shown(this.logPath(name))})`,
    );
  }

  /** Runs a node script to its end with its output in its log; rejects with that log's last message. */
  runToEnd(name, label, script, env) {
    const fd = openSync(this.logPath(name), "w");
    const child = spawn(process.execPath, [script], {
      cwd: dirname(dirname(script)),
      env: { ...process.env, ...env },
      stdio: ["ignore", fd, fd],
    });
    closeSync(fd);
    this.children.set(name, child);
    return new Promise((resolveRun, rejectRun) => {
      child.once("exit", (code, signal) => {
        this.children.delete(name);
        if (code === 0) resolveRun();
        else rejectRun(this.failure(name, `failed (${signal ?? `exit code ${code}`})`, label));
      });
    });
  }

  migrate(apps) {
    return Promise.all(
      apps
        .filter((app) => app.migrates)
        .map((app) =>
          this.runToEnd(
            `${app.name}-migrate`,
            `${app.name}: migration`,
            join(root, "apps", app.name, "dist", "migrate.js"),
            {
              DATABASE_URL: app.env.DATABASE_URL,
            },
          ),
        ),
    );
  }

  spawnApp(app) {
    const fd = openSync(this.logPath(app.name), "w");
    const child = spawn(
      process.execPath,
      [...(app.nodeFlags ?? []), join(root, "apps", app.name, "dist", "main.js")],
      {
        cwd: join(root, "apps", app.name),
        env: { ...process.env, ...app.env },
        stdio: ["ignore", fd, fd],
      },
    );
    closeSync(fd);
    this.children.set(app.name, child);
    child.once("exit", (code, signal) => {
      if (this.stopping) return;
      const how = `exited${this.running ? "" : " during start-up"} (${signal ?? `exit code ${code}`})`;
      console.error(this.failure(app.name, how).message);
      this.stop(1);
    });
    return child;
  }

  /** Resolves once `/readyz` answers 200 (the matchmaker: license valid and warmed up). */
  async waitReady(app) {
    const child = this.children.get(app.name);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let last = "no answer";
    while (Date.now() < deadline) {
      if (this.stopping) return;
      if (child.exitCode !== null || child.signalCode !== null)
        throw this.failure(
          app.name,
          `exited during start-up (${child.signalCode ?? `exit code ${child.exitCode}`})`,
        );
      try {
        const res = await request(`http://127.0.0.1:${app.port}/readyz`, {}, 2000);
        if (res.ok) return;
        last = `/readyz answered ${res.status} ${(await res.text()).replace(/\s+/g, " ").slice(0, 200)}`;
      } catch {}
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new StartError(
      `${app.name} was not ready within ${READY_TIMEOUT_MS / 1000} s (${last}) (log: ${shown(this.logPath(app.name))})`,
    );
  }

  /** SIGTERM to every child, then exit with `code` once they are gone (SIGKILL after 15 s). */
  stop(code) {
    if (this.stopping) return;
    this.stopping = true;
    const running = [...this.children.values()].filter((c) => c.exitCode === null && c.signalCode === null);
    for (const child of running) child.kill("SIGTERM");
    const timer = setTimeout(() => {
      for (const child of running) child.kill("SIGKILL");
      process.exit(code);
    }, STOP_TIMEOUT_MS);
    timer.unref();
    Promise.all(
      running.map((c) =>
        c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.once("exit", r)),
      ),
    ).then(() => process.exit(code));
  }
}

/** A development license (advanced edition), created once and kept in the secrets file. */
async function devLicense(licenseUrl, settings, secrets) {
  if (secrets.licenseKey) {
    const res = await request(`${licenseUrl}/v1/licenses/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ licenseKey: secrets.licenseKey }),
    });
    if (res.ok) return secrets.licenseKey;
  }
  const res = await request(`${licenseUrl}/admin/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secrets.adminToken}` },
    body: JSON.stringify({ name: "Local development", email: "dev@arena.localhost", edition: "advanced" }),
  });
  if (!res.ok)
    throw new StartError(
      `license: could not create the development license: ${res.status} ${await res.text()}`,
    );
  secrets.licenseKey = (await res.json()).licenseKey;
  saveSecrets(settings.devDir, secrets);
  return secrets.licenseKey;
}

function loginRequest(gatewayUrl, dev) {
  return {
    url: `${gatewayUrl}/auth/`,
    headers: {
      "X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth",
      "Content-Type": "application/x-amz-json-1.1",
    },
    body: JSON.stringify({
      AuthFlow: "USER_PASSWORD_AUTH",
      ClientId: dev.clientId,
      AuthParameters: { USERNAME: dev.username, PASSWORD: dev.password },
    }),
  };
}

/**
 * A development tenant (`dev`), app client, an admin user and a game-server user on the gateway. Kept in the secrets file
 * and reused while they still log in (a new database prefix or a dropped database: created again).
 */
async function devTenant(gatewayUrl, settings, secrets) {
  if (secrets.gatewayClientId) {
    const dev = {
      clientId: secrets.gatewayClientId,
      username: secrets.gatewayUsername,
      password: secrets.gatewayPassword,
      ...(secrets.gatewayServerUsername
        ? { server: { username: secrets.gatewayServerUsername, password: secrets.gatewayServerPassword } }
        : {}),
    };
    const login = loginRequest(gatewayUrl, dev);
    const res = await request(login.url, { method: "POST", headers: login.headers, body: login.body });
    if (res.ok) return dev;
  }
  const admin = { "content-type": "application/json", authorization: `Bearer ${secrets.adminToken}` };
  const post = (path, body) =>
    request(`${gatewayUrl}${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) });
  const tenant = await post("/admin/tenants", { tenantId: "dev", name: "Local development" });
  if (!tenant.ok && tenant.status !== 409)
    throw new StartError(`gateway: could not create the dev tenant: ${tenant.status} ${await tenant.text()}`);
  const client = await post("/admin/tenants/dev/clients", { name: "local game servers" });
  if (!client.ok)
    throw new StartError(
      `gateway: could not create the dev app client: ${client.status} ${await client.text()}`,
    );
  const dev = {
    clientId: (await client.json()).clientId,
    password: randomBytes(12).toString("hex"),
    // Usernames are unique across tenants and kept in the database: a new name each time.
    username: `dev-server-${randomBytes(3).toString("hex")}`,
  };
  // Two users: an admin (configures games, seasons) and a game server (queues, matches, results).
  const server = { username: `${dev.username}-gs`, password: randomBytes(12).toString("hex") };
  for (const [who, role] of [
    [dev, "admin"],
    [server, "server"],
  ]) {
    const user = await post("/admin/tenants/dev/users", {
      username: who.username,
      password: who.password,
      role,
    });
    if (!user.ok)
      throw new StartError(
        `gateway: could not create the dev ${role} user: ${user.status} ${await user.text()}`,
      );
  }
  dev.server = server;
  Object.assign(secrets, {
    gatewayClientId: dev.clientId,
    gatewayUsername: dev.username,
    gatewayPassword: dev.password,
    gatewayServerUsername: server.username,
    gatewayServerPassword: server.password,
  });
  saveSecrets(settings.devDir, secrets);
  return dev;
}

const sq = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

function curlLine({ url, headers, body }) {
  const h = Object.entries(headers).map(([k, v]) => ` -H ${sq(`${k}: ${v}`)}`);
  return `curl -s ${url}${h.join("")} -d ${sq(body)}`;
}

function matchmakingCurl(matchmakerUrl) {
  return curlLine({
    url: `${matchmakerUrl}/matchmaking/basic`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      game_mode: { numTeams: 2, numPlayersPerTeam: 1 },
      tickets: [
        { ticketId: "a", joinTimestamp: 1700000000, rating: 1500, servers: ["eu-1", "us-1"] },
        { ticketId: "b", joinTimestamp: 1700000000, rating: 1510, servers: ["eu-1"] },
      ],
    }),
  });
}

function banner(settings, apps, secrets, dev) {
  const url = (name) => `http://127.0.0.1:${apps.find((a) => a.name === name).port}`;
  const what = {
    gateway: "POST /auth (Cognito InitiateAuth), the hosted API, /docs, /ws",
    matchmaker: "POST /matchmaking/basic, /matchmaking/advanced",
    license: "POST /v1/registrations, /v1/licenses/validate, /admin/licenses",
    stats: "internal: only the gateway calls it (SERVICE_TOKEN)",
  };
  const order = ["gateway", "matchmaker", "license", "stats"].filter((n) => apps.some((a) => a.name === n));
  const lines = [
    settings.matchmakerOnly
      ? "Arena's matchmaker is running, with its license service."
      : "Arena is running: gateway, stats, matchmaker and license service.",
    "",
    ...order.map((name) => `  ${name.padEnd(11)} ${url(name).padEnd(24)} ${what[name]}`),
    "",
    `  admin token ${secrets.adminToken}`,
    `  license key ${secrets.licenseKey} (advanced edition; the matchmaker runs with it)`,
  ];
  if (dev)
    lines.push(
      `  login       tenant dev, role admin: ClientId ${dev.clientId} USERNAME ${dev.username} PASSWORD ${dev.password}`,
      ...(dev.server
        ? [
            `              role server (a game server): USERNAME ${dev.server.username} PASSWORD ${dev.server.password}`,
          ]
        : []),
    );
  lines.push(
    `  databases   ${apps
      .filter((a) => a.migrates)
      .map((a) => `${settings.prefix}${a.name}`)
      .join(", ")} on ${settings.serverUrl.host}:${settings.serverUrl.port}`,
    `  files       ${shown(join(settings.devDir, "secrets.json"))}, mail in ${shown(join(settings.devDir, "mail"))}/, logs in ${shown(join(settings.devDir, "logs"))}/`,
    "",
  );
  if (dev) {
    const login = curlLine(loginRequest(url("gateway"), dev));
    lines.push(
      "Log in as a game server does (Cognito InitiateAuth; the answer's IdToken is the token):",
      `  ${login}`,
      "Keep the token and call the hosted API with it:",
      `  TOKEN=$(${login} | node -pe 'JSON.parse(require("fs").readFileSync(0)).AuthenticationResult.IdToken')`,
      `  curl -s ${url("gateway")}/seasons -H "Authorization: $TOKEN"`,
    );
  }
  lines.push("Ask the matchmaker for matches:", `  ${matchmakingCurl(url("matchmaker"))}`, "");
  lines.push(`Ctrl-C stops everything (logs: tail -f ${shown(join(settings.devDir, "logs"))}/*.log).`);
  return lines.join("\n");
}

async function run(args, prepare, platformRef) {
  const settings = parseSettings(args);
  const problems = await checkServices(settings);
  if (problems.length > 0) throw new StartError(problems.join("\n"));

  const secrets = loadSecrets(settings.devDir);
  const wiring = wiringFor(settings, secrets);
  const apps = appsFor(wiring);
  const busy = await Promise.all(apps.map((a) => reachable("127.0.0.1", a.port, 500)));
  const taken = apps.filter((_, i) => busy[i]);
  if (taken.length > 0)
    throw new StartError(
      `port ${taken.map((a) => `${a.port} (${a.name})`).join(", ")} already in use: another platform is running? ` +
        `Stop it, or run this one beside it: ARENA_PORT_OFFSET=100 npm start`,
    );

  if (settings.build) prepare();
  for (const app of apps)
    if (!existsSync(join(root, "apps", app.name, "dist", "main.js")))
      throw new StartError(`apps/${app.name} is not built: run pnpm build, or start without --no-build`);

  const platform = new Platform(settings);
  platformRef.current = platform;
  mkdirSync(platform.logDir, { recursive: true });
  await platform.migrate(apps);
  if (platform.stopping) return;

  // The matchmaker waits for its license; everything else starts at once.
  const matchmaker = apps.find((a) => a.name === "matchmaker");
  for (const app of apps) if (app !== matchmaker) platform.spawnApp(app);
  const license = apps.find((a) => a.name === "license");
  await platform.waitReady(license);
  if (platform.stopping) return;
  // devLicense keeps the key in `secrets`, which the wiring reads.
  await devLicense(`http://127.0.0.1:${license.port}`, settings, secrets);
  matchmaker.env = appEnvironment("matchmaker", wiring);
  platform.spawnApp(matchmaker);
  await Promise.all(apps.map((a) => platform.waitReady(a)));
  if (platform.stopping) return;

  const gateway = apps.find((a) => a.name === "gateway");
  const dev = gateway ? await devTenant(`http://127.0.0.1:${gateway.port}`, settings, secrets) : undefined;
  if (platform.stopping) return;
  platform.running = true;
  console.log(banner(settings, apps, secrets, dev));
}

/** Runs the platform until SIGINT/SIGTERM (exit 0) or a failure (one line on stderr, exit 1). */
export function start({ args, prepare }) {
  const platformRef = { current: undefined };
  const onSignal = () => {
    if (!platformRef.current) process.exit(0);
    if (!platformRef.current.stopping) console.error("Stopping the platform...");
    platformRef.current.stop(0);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  run(args, prepare, platformRef).catch((err) => {
    if (platformRef.current?.stopping) return;
    console.error(err instanceof StartError ? err.message : `start-up failed: ${err?.message ?? err}`);
    if (platformRef.current) platformRef.current.stop(1);
    else process.exit(1);
  });
}
