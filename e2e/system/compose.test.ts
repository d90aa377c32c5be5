import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { appConfig } from "../src/app-config.js";
import { type Instruction, imageStages, parseDockerfile } from "../src/dockerfile.js";
import { fencedBlocks } from "../src/readme-blocks.js";

/**
 * docker-compose.yml as Compose itself reads it (`docker-compose config`: validated, variables
 * interpolated, normalised; no engine needed), checked against the apps' own config schemas and
 * images (the Dockerfile read with each service's build args).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const secrets = {
  POSTGRES_PASSWORD: "0123456789abcdef0123456789abcdef",
  ADMIN_TOKEN: "compose-admin-token-0123456789",
  SIGNING_KEY_SECRET: "compose-signing-key-secret-0123456789abcdef",
  SERVICE_TOKEN: "compose-service-token-0123456789",
  LICENSE_KEY: "lk_compose_test_key",
};

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[] | string;
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string; disable?: boolean };
  ports?: unknown[];
  profiles?: string[];
  restart?: string;
  volumes?: Array<string | { source?: string; target: string; type?: string }>;
}

function compose(args: string[], env: Record<string, string>) {
  // Compose v2 prints JSON itself; v1 (Debian bookworm's docker-compose) prints YAML, read here
  // with the PyYAML that v1 runs on (the project keeps no YAML parser).
  const v2 = spawnSync("docker", ["compose", "version"]).status === 0;
  const [cmd, ...base] = v2 ? ["docker", "compose"] : ["docker-compose"];
  const result = spawnSync(cmd!, [...base, "-f", "docker-compose.yml", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...env },
  });
  if (result.error)
    throw new Error(`${cmd} could not run (.ci/run installs docker-compose): ${result.error.message}`);
  return result;
}

function composeConfig(env: Record<string, string>): { services: Record<string, Service> } {
  const v2 = spawnSync("docker", ["compose", "version"]).status === 0;
  const result = compose(v2 ? ["config", "--format", "json"] : ["config"], env);
  if (result.status !== 0) throw new Error(`docker-compose config failed:\n${result.stderr}`);
  if (v2) return JSON.parse(result.stdout);
  const json = spawnSync(
    "python3",
    ["-c", "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"],
    { input: result.stdout, encoding: "utf8" },
  );
  if (json.status !== 0) throw new Error(`could not read docker-compose's YAML:\n${json.stderr}`);
  return JSON.parse(json.stdout);
}

const config = composeConfig(secrets);
const services = config.services;
const apps = ["license", "matchmaker", "stats", "gateway"] as const;
const migrated = ["license", "stats", "gateway"] as const;

/** The stages the service's image is made of (its Dockerfile read with its build args). */
function imageStagesOf(service: Service) {
  if (!service.build) return [];
  const path = join(service.build.context, service.build.dockerfile ?? "Dockerfile");
  return imageStages(parseDockerfile(readFileSync(path, "utf8")), service.build.args ?? {});
}

/** The image's ENV, EXPOSE and HEALTHCHECK: what it adds to the service's environment. */
function imageSettings(service: Service) {
  const env: Record<string, string> = {};
  const expose: string[] = [];
  let healthcheck: Instruction | undefined;
  for (const stage of imageStagesOf(service))
    for (const ins of stage.instructions) {
      if (ins.keyword === "ENV")
        for (const [, k, v] of ins.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g)) env[k!] = v!;
      if (ins.keyword === "EXPOSE") expose.push(...ins.args.split(/\s+/));
      if (ins.keyword === "HEALTHCHECK") healthcheck = ins;
    }
  return {
    env,
    expose,
    healthcheck: healthcheck && !/^NONE\b/.test(healthcheck.args) ? healthcheck : undefined,
  };
}

function hasHealthcheck(name: string): boolean {
  const service = services[name]!;
  if (service.healthcheck) return !service.healthcheck.disable;
  return imageSettings(service).healthcheck !== undefined;
}

describe("docker-compose.yml", () => {
  it("gives every app the variables its config requires, and a configuration it accepts", async () => {
    for (const app of apps) {
      const service = services[app]!;
      const environment = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([k, v]) => [k, v ?? ""]),
      );
      const { schema, load } = await appConfig(app);
      expect(schema.required.length).toBeGreaterThan(0);
      for (const name of schema.required)
        expect(`${app} ${name}=${environment[name] ? "set" : "unset"}`).toBe(`${app} ${name}=set`);
      // Every variable the file sets is one the app reads (a typo would be silently ignored).
      for (const name of Object.keys(environment))
        expect(`${app} reads ${name}: ${name in schema.properties}`).toBe(`${app} reads ${name}: true`);
      expect(() => load({ ...imageSettings(service).env, ...environment })).not.toThrow();
    }
  });

  it("fails, naming the variable, when a secret is not set", () => {
    for (const name of Object.keys(secrets)) {
      const env: Record<string, string> = { ...secrets };
      delete env[name];
      const result = compose(["config"], env);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(`set ${name}`);
    }
    // An empty value counts as missing too (`:?`, not `?`).
    const empty = compose(["config"], { ...secrets, ADMIN_TOKEN: "" });
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toContain("set ADMIN_TOKEN");
  });

  it("runs each migration as a one-off of its app's image, and starts the app only after it succeeded", () => {
    for (const app of migrated) {
      const migration = services[`${app}-migrate`];
      expect(migration).toBeDefined();
      expect(migration!.command).toEqual(["node", "dist/migrate.js"]);
      expect(migration!.restart).toBe("no");
      expect(migration!.build).toEqual(services[app]!.build);
      expect(migration!.image).toBe(services[app]!.image);
      expect(migration!.environment?.DATABASE_URL).toBe(services[app]!.environment?.DATABASE_URL);
      expect(migration!.depends_on?.postgres?.condition).toBe("service_healthy");
      expect(services[app]!.depends_on?.[`${app}-migrate`]?.condition).toBe("service_completed_successfully");
      expect(readFileSync(join(root, "apps", app, "src", "migrate.ts"), "utf8")).toContain("runMigrationJob");
    }
  });

  it("starts the apps after a healthy PostgreSQL and Redis, and waits only on services with a health check", () => {
    for (const app of apps) {
      const env = services[app]!.environment ?? {};
      const deps = services[app]!.depends_on ?? {};
      if (env.DATABASE_URL) expect(`${app}: ${deps.postgres?.condition}`).toBe(`${app}: service_healthy`);
      if (env.REDIS_URL) expect(`${app}: ${deps.redis?.condition}`).toBe(`${app}: service_healthy`);
    }
    for (const [name, service] of Object.entries(services))
      for (const [dep, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(services[dep]).toBeDefined();
        if (condition === "service_healthy") expect(`${dep}: ${hasHealthcheck(dep)}`).toBe(`${dep}: true`);
        if (condition === "service_completed_successfully") expect(services[dep]!.restart).toBe("no");
        expect(`${name} → ${dep}`).not.toBe(`${name} → ${name}`);
      }
  });

  it("builds every app's image from the one Dockerfile, the app named by its APP build arg", () => {
    for (const app of apps) {
      expect(services[app]!.build?.dockerfile ?? "Dockerfile").toBe("Dockerfile");
      expect(services[app]!.build?.args).toEqual({ APP: app });
      expect(services[app]!.image).toMatch(new RegExp(`^arena/${app}:`));
    }
  });

  it("gives every app a health check (its image's HEALTHCHECK on /livez)", () => {
    for (const app of apps) {
      expect(`${app}: ${hasHealthcheck(app)}`).toBe(`${app}: true`);
      expect(imageSettings(services[app]!).healthcheck?.args).toContain("/livez");
    }
  });

  it("publishes the gateway, the matchmaker, the license service and mailpit's UI; stats, PostgreSQL and Redis stay internal", () => {
    const published = Object.entries(services)
      .filter(([, s]) => (s.ports ?? []).length > 0 && s.profiles === undefined)
      .map(([name]) => name)
      .sort();
    expect(published).toEqual(["gateway", "license", "mailpit", "matchmaker"]);
  });

  it("keeps Prometheus and Grafana in the profile `monitoring`, on the host's loopback, with the infra files they read", () => {
    // Compose v2 lists a profile's services only when it is active; v1 lists them all.
    const withMonitoring = composeConfig({ ...secrets, COMPOSE_PROFILES: "monitoring" }).services;
    const monitoring = Object.entries(withMonitoring)
      .filter(([, s]) => s.profiles !== undefined)
      .map(([name]) => name)
      .sort();
    expect(monitoring).toEqual(["grafana", "prometheus"]);
    for (const name of monitoring) {
      const service = withMonitoring[name]!;
      expect(service.profiles).toEqual(["monitoring"]);
      expect(service.image).toMatch(/^(prom\/prometheus|grafana\/grafana):v?\d+\.\d+\.\d+$/);
      for (const port of service.ports ?? []) {
        const hostIp = typeof port === "string" ? port.split(":")[0] : (port as { host_ip?: string }).host_ip;
        expect(`${name} ${hostIp}`).toBe(`${name} 127.0.0.1`);
      }
      const mounted = (service.volumes ?? []).map((v) =>
        typeof v === "string" ? v.split(":")[0]! : v.source!,
      );
      for (const source of mounted.filter((s) => s.startsWith("/") || s.startsWith(".")))
        expect(`${source}: ${existsSync(source)}`).toBe(`${source}: true`);
    }
  });

  it("points every service URL at a service of the file and the port its image exposes", () => {
    let checked = 0;
    for (const app of apps)
      for (const [name, value] of Object.entries(services[app]!.environment ?? {})) {
        const url = /^(https?|smtp|redis|postgresql):\/\/(?:[^@/]*@)?([^:/]+):(\d+)/.exec(value ?? "");
        if (!url || name === "PUBLIC_URL") continue;
        const [, scheme, host, port] = url;
        const target = services[host!];
        expect(`${app} ${name} → ${host}: ${target !== undefined}`).toBe(`${app} ${name} → ${host}: true`);
        if (scheme === "http" || scheme === "https") {
          expect(imageSettings(target!).expose).toContain(port);
          expect(imageSettings(target!).env.PORT).toBe(port);
        }
        checked++;
      }
    expect(checked).toBeGreaterThanOrEqual(8);
    expect(services.license!.environment?.SMTP_URL).toBe("smtp://mailpit:1025");
  });

  it("creates every database an app's DATABASE_URL names", () => {
    const postgres = services.postgres!;
    const initSql = (postgres.volumes ?? [])
      .map((v) => (typeof v === "string" ? { source: v.split(":")[0], target: v.split(":")[1]! } : v))
      .filter((v) => v.target.startsWith("/docker-entrypoint-initdb.d/"))
      .map((v) => readFileSync(v.source!, "utf8"))
      .join("\n");
    const created = new Set([
      postgres.environment?.POSTGRES_DB,
      ...[...initSql.matchAll(/CREATE DATABASE\s+"?(\w+)"?/gi)].map((m) => m[1]),
    ]);
    for (const app of migrated) {
      const url = new URL(services[app]!.environment!.DATABASE_URL!);
      expect(url.hostname).toBe("postgres");
      expect(url.password).toBe(secrets.POSTGRES_PASSWORD);
      expect(created).toContain(url.pathname.slice(1));
    }
    const names = migrated.map((app) => new URL(services[app]!.environment!.DATABASE_URL!).pathname);
    expect(new Set(names).size).toBe(migrated.length);
  });
});

/**
 * A `docker` for the README's Compose block where no engine runs: each call is recorded with the
 * secrets it passes to Compose, and `exec … create-license` answers as the license CLI prints a
 * license (its JSON, two-space indented), so the block's own extraction of the key is what runs.
 */
const DOCKER_RECORDER = `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
const names = ["POSTGRES_PASSWORD", "ADMIN_TOKEN", "SIGNING_KEY_SECRET", "SERVICE_TOKEN", "LICENSE_KEY"];
const env = Object.fromEntries(names.filter((n) => n in process.env).map((n) => [n, process.env[n]]));
fs.appendFileSync(process.env.ARENA_DOCKER_LOG, JSON.stringify({ args, env }) + "\\n");
if (args.includes("exec") && args.includes("create-license"))
  console.log(JSON.stringify({ id: "lic_recorded", edition: "advanced", licenseKey: "lk_recorded_key" }, null, 2));
`;

describe("the README's Compose commands", () => {
  const readme = fencedBlocks("README.md", readFileSync(join(root, "README.md"), "utf8"));
  const block = readme.find((b) => b.text.includes("docker compose up"));

  it("run as written: each docker compose call is one Compose accepts, with every secret it needs", () => {
    expect(block?.marker?.run).toBe(false);
    const bin = mkdtempSync(join(tmpdir(), "arena-compose-readme-"));
    try {
      writeFileSync(join(bin, "docker"), DOCKER_RECORDER, { mode: 0o755 });
      const log = join(bin, "calls.jsonl");
      const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: bin, ARENA_DOCKER_LOG: log };
      const run = spawnSync("sh", ["-e", "-c", block!.text], { cwd: root, env, encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const calls = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { args: string[]; env: Record<string, string> });
      expect(calls.map((c) => c.args.slice(0, 4).join(" "))).toEqual([
        "compose up --build -d",
        "compose exec -T license",
        "compose up --build -d",
      ]);
      // The key the block read from the CLI's answer reaches the last start.
      expect(calls[2]!.env.LICENSE_KEY).toBe("lk_recorded_key");
      for (const call of calls) {
        expect(Object.keys(call.env).sort()).toEqual([...Object.keys(secrets)].sort());
        checkComposeCall(call.args.slice(1), call.env);
      }
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

/** Compose reads the file with the call's environment, knows the service named and each option used. */
function checkComposeCall(args: string[], env: Record<string, string>): void {
  const check = compose(["config", "-q"], env);
  expect(`${args.join(" ")}: ${check.status} ${check.stderr}`).toBe(`${args.join(" ")}: 0 `);
  const [subcommand, ...rest] = args;
  const help = compose([subcommand!, "--help"], env).stdout;
  const names = compose(["config", "--services"], env).stdout.split("\n");
  // Compose's options come before the service; what follows it is the command run in it.
  const at = rest.findIndex((a) => !a.startsWith("-"));
  const options = at === -1 ? rest : rest.slice(0, at);
  for (const option of options)
    expect(`${subcommand} ${option}: ${help.includes(option)}`).toMatch(/: true$/);
  const service = at === -1 ? undefined : rest[at];
  if (service !== undefined) expect(names).toContain(service);
}
