import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, freePort } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { copyBuildContext, parseDockerfile } from "../src/dockerfile.js";
import {
  durationMs,
  type ReplayedImage,
  readJson,
  replayDockerfile,
  runContainer,
  runToEnd,
} from "../src/image-replay.js";

/**
 * Each app's image, built without a Docker engine: the Dockerfile's stages replayed on this
 * machine with `--build-arg APP=<app>` (turbo prune, install, build, deploy: the file's own
 * commands), then the image's /app started with its ENV and CMD, as its USER, against the real
 * PostgreSQL and Redis, after the image's own `node dist/migrate.js` on a database of its own.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const adminToken = `img-admin-${randomBytes(12).toString("hex")}`;
const serviceToken = `img-service-${randomBytes(12).toString("hex")}`;
const signingKeySecret = randomBytes(32).toString("hex");
const redisKeyPrefix = `arena_img_${randomBytes(4).toString("hex")}:`;
const adminUrl = process.env.E2E_ADMIN_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

let workDir: string;
let contextDir: string;
const databases: string[] = [];
const running: ChildProcess[] = [];
const urls: Record<string, string> = {};
let licenseKey = "";

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "arena-images-"));
  contextDir = join(workDir, "context");
  // One build context for the four images, as the client would send it.
  await copyBuildContext(root, contextDir);
});

afterAll(async () => {
  await Promise.all(
    running.map((child) =>
      child.exitCode === null && child.signalCode === null
        ? new Promise((r) => {
            child.once("exit", r);
            child.kill("SIGKILL");
          })
        : null,
    ),
  );
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (const db of databases)
    await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => {});
  await admin.end();
  if (workDir && !process.env.KEEP_IMAGES) await rm(workDir, { recursive: true, force: true });
});

async function createDatabase(app: string): Promise<string> {
  const name = `arena_img_${app}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  databases.push(name);
  return `postgresql://postgres@127.0.0.1:5432/${name}`;
}

async function build(app: string, buildArgs: Record<string, string> = { APP: app }): Promise<ReplayedImage> {
  const dockerfile = parseDockerfile(await readFile(join(root, "Dockerfile"), "utf8"));
  return replayDockerfile({
    repoRoot: root,
    dockerfile,
    contextDir,
    workDir: join(workDir, app),
    buildArgs,
    log: process.env.E2E_LOG_LEVEL ? (line) => process.stderr.write(`[${app}] ${line}\n`) : undefined,
  });
}

/** Package names in a pnpm node_modules/.pnpm directory (`@scope+name@1.2.3_peer` → `@scope/name`). */
async function installedPackages(nodeModules: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (const entry of await readdir(join(nodeModules, ".pnpm"))) {
    const match = /^(@[^+]+\+[^@]+|[^@]+)@/.exec(entry);
    if (match) names.add(match[1]!.replace("+", "/"));
  }
  return names;
}

type Manifest = {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

/** The devDependencies of the app and of the workspace packages it runs with, that none of them needs at run time. */
async function devOnlyPackages(app: string): Promise<Set<string>> {
  const manifests = new Map<string, Manifest>();
  for (const dir of ["apps", "packages"])
    for (const name of await readdir(join(root, dir))) {
      const manifest = await readJson<Manifest>(join(root, dir, name, "package.json")).catch(() => undefined);
      if (manifest) manifests.set(manifest.name, manifest);
    }
  const closure = new Set<string>();
  const visit = (name: string) => {
    if (closure.has(name)) return;
    closure.add(name);
    for (const [dep, spec] of Object.entries(manifests.get(name)?.dependencies ?? {}))
      if (spec.startsWith("workspace:")) visit(dep);
  };
  visit(`@arena/${app}`);
  const prod = new Set([...closure].flatMap((n) => Object.keys(manifests.get(n)?.dependencies ?? {})));
  const dev = [...closure].flatMap((n) => Object.keys(manifests.get(n)?.devDependencies ?? {}));
  // Type packages may come in as dependencies of runtime packages (@types/pg with pg's adapter).
  return new Set(dev.filter((d) => !prod.has(d) && !d.startsWith("@types/")));
}

async function waitFor(url: string, child: ChildProcess, output: () => string): Promise<void> {
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output()}`);
      return fetch(url).then(
        (res) => res.ok,
        () => false,
      );
    },
    { timeoutMs: 60_000, everyMs: 100, what: () => `${url} to answer 200:\n${output()}` },
  );
}

interface AppCase {
  app: "license" | "matchmaker" | "stats" | "gateway";
  migrates: boolean;
  env(): Promise<Record<string, string>>;
}

const apps: AppCase[] = [
  {
    app: "license",
    migrates: true,
    env: async () => ({ ADMIN_TOKEN: adminToken, SIGNING_KEY_SECRET: signingKeySecret }),
  },
  {
    app: "matchmaker",
    migrates: false,
    env: async () => ({ LICENSE_URL: urls.license!, LICENSE_KEY: licenseKey }),
  },
  {
    app: "stats",
    migrates: true,
    env: async () => ({
      SERVICE_TOKEN: serviceToken,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      MATCHMAKER_URL: urls.matchmaker!,
    }),
  },
  {
    app: "gateway",
    migrates: true,
    env: async () => ({
      ADMIN_TOKEN: adminToken,
      SIGNING_KEY_SECRET: signingKeySecret,
      SERVICE_TOKEN: serviceToken,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      STATS_URL: urls.stats!,
    }),
  },
];

it("builds no image without an APP, nor with a build arg the Dockerfile does not declare", async () => {
  await expect(build("none", {})).rejects.toThrow("is a build arg missing?");
  await expect(build("typo", { APP: "stats", APPS: "stats" })).rejects.toThrow("declares no ARG APPS");
});

// In order: each app's image runs against the images before it (the matchmaker holds a license
// from the license image, stats calls the matchmaker image, the gateway calls the stats image).
describe.each(apps)("the $app image", ({ app, migrates, env }) => {
  let image: ReplayedImage;
  beforeAll(async () => {
    image = await build(app);
  }, 600_000);

  it("runs as a non-root user on a Node.js LTS slim base, with a HEALTHCHECK", () => {
    expect(image.user).toBeDefined();
    expect(["root", "0"]).not.toContain(image.user);
    expect(image.user).toMatch(/^(node|[1-9]\d*)$/);
    const base = /^node:(\d+)(?:\.[\d.]+)?-(?:\w+-)?slim$/.exec(image.base);
    expect(base).not.toBeNull();
    // LTS lines are the even majors; this machine's Node.js stands in for the image's.
    expect(Number(base![1]) % 2).toBe(0);
    expect(base![1]).toBe(process.versions.node.split(".")[0]);
    expect(image.healthcheck?.cmd.join(" ")).toContain("/livez");
    expect(image.expose).toContain(image.env.PORT);
  });

  it("holds the app's production dependencies only", async () => {
    const appDir = image.hostPath(image.workdir);
    const installed = await installedPackages(join(appDir, "node_modules"));
    const manifest = await readJson<Manifest>(join(root, "apps", app, "package.json"));
    for (const dep of Object.keys(manifest.dependencies ?? {})) expect(installed.has(dep) || dep).toBe(true);
    for (const tool of ["jest", "typescript", "@swc/core", "turbo", "@biomejs/biome"])
      expect(installed.has(tool) ? tool : "absent").toBe("absent");
    const devOnly = await devOnlyPackages(app);
    expect(devOnly.size).toBeGreaterThan(3);
    expect([...installed].filter((name) => devOnly.has(name))).toEqual([]);
    expect(await readdir(join(appDir, "dist"))).toContain("main.js");
  });

  it("migrates its own database with its one-off command, then answers /livez, /readyz and its HEALTHCHECK", async () => {
    const port = String(await freePort());
    const runEnv: Record<string, string> = { ...(await env()), PORT: port, HOST: "127.0.0.1" };
    if (process.env.E2E_LOG_LEVEL === undefined) runEnv.LOG_LEVEL = "warn";
    if (migrates) {
      runEnv.DATABASE_URL = await createDatabase(app);
      const migration = await runToEnd(image, { cmd: ["node", "dist/migrate.js"], env: runEnv });
      expect(migration).toEqual({ code: 0, output: expect.stringMatching(/Applied \d+ migration/) });
    } else {
      expect(await readdir(image.hostPath("dist"))).not.toContain("migrate.js");
    }

    const child = await runContainer(image, { env: runEnv });
    running.push(child);
    let output = "";
    child.stdout?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-8000)));
    child.stderr?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-8000)));
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/livez`, child, () => output);
    await waitFor(`${url}/readyz`, child, () => output);
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    urls[app] = url;

    const health = await runToEnd(image, {
      cmd: image.healthcheck!.cmd,
      env: { PORT: port },
      timeoutMs: durationMs(image.healthcheck!.flags.timeout, 30_000),
    });
    expect(health).toEqual({ code: 0, output: "" });

    if (app === "license") {
      const created = await fetch(`${url}/admin/licenses`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ name: "images", email: "images@arena.localhost", edition: "advanced" }),
      });
      expect(created.status).toBe(201);
      licenseKey = ((await created.json()) as { licenseKey: string }).licenseKey;
      // Without SMTP_URL the key mail is a file in MAIL_DIR: a place the runtime user may write.
      const registered = await fetch(`${url}/v1/registrations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "images", email: "mail@arena.localhost" }),
      });
      expect(registered.status).toBe(202);
      const mailDir = image.env.MAIL_DIR!;
      expect(mailDir.startsWith(image.root)).toBe(true);
      const mails = await eventually(
        async () => {
          const found = await readdir(mailDir).catch(() => []);
          return found.length > 0 ? found : undefined;
        },
        { timeoutMs: 15_000, everyMs: 100, what: () => `the key mail in ${mailDir}:\n${output}` },
      );
      expect(mails.length ? mails.length : output).toBe(1);
    }
  }, 120_000);
});

// Stopped as `docker stop` stops them: SIGTERM, then a clean exit.
it("stops every app gracefully on SIGTERM", async () => {
  expect(running.length).toBe(apps.length);
  for (const child of [...running].reverse()) {
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }
}, 60_000);
