import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "@jest/globals";
import { BASE_PORTS } from "../../scripts/platform-wiring.mjs";
import {
  banner,
  dropDatabases,
  dropRedisKeys,
  freeOffset,
  interrupt,
  portIsFree,
  type StartRun,
  spawnStart,
} from "../src/npm-start.js";

// `npm start` (scripts/platform.mjs start) as a developer runs it, against the built apps: the
// printed commands are run literally through sh, and Ctrl-C (SIGINT) must leave nothing behind.

/** Where curl is missing, a stand-in for the subset the banner uses (-s, -H, -d, one URL). */
const CURL_STAND_IN = `#!/usr/bin/env node
const args = process.argv.slice(2);
const headers = {};
let url;
let body;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "-s") continue;
  if (args[i] === "-H") {
    const h = args[++i];
    headers[h.slice(0, h.indexOf(":")).trim()] = h.slice(h.indexOf(":") + 1).trim();
  } else if (args[i] === "-d") body = args[++i];
  else if (args[i].startsWith("-")) throw new Error("curl stand-in: unsupported option " + args[i]);
  else url = args[i];
}
const res = await fetch(url, { method: body === undefined ? "GET" : "POST", headers, body });
process.stdout.write(await res.text());
`;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const runs: StartRun[] = [];
const cleanups: (() => Promise<void>)[] = [];

/** `node scripts/platform.mjs start ...args` with its own dev dir, and the environment given. */
async function startPlatform(args: string[], env: Record<string, string>): Promise<StartRun> {
  const devDir = await mkdtemp(join(tmpdir(), "arena-start-"));
  cleanups.push(() => rm(devDir, { recursive: true, force: true }));
  const run = spawnStart(args, devDir, env);
  runs.push(run);
  return run;
}

/** The printed line that matches, without its indentation. */
function line(text: string, pattern: RegExp): string {
  const found = text.split("\n").find((l) => pattern.test(l));
  if (!found) throw new Error(`no line matching ${pattern} in:\n${text}`);
  return found.trim();
}

let shPath: string | undefined;
/** PATH for sh: as it is when curl exists, else (or with E2E_CURL_STAND_IN=1) with the stand-in first. */
async function shellPath(): Promise<string> {
  if (shPath) return shPath;
  const hasCurl =
    process.env.E2E_CURL_STAND_IN !== "1" && spawnSync("sh", ["-c", "command -v curl"]).status === 0;
  if (hasCurl) {
    shPath = process.env.PATH ?? "";
  } else {
    const bin = await mkdtemp(join(tmpdir(), "arena-curl-"));
    cleanups.push(() => rm(bin, { recursive: true, force: true }));
    await writeFile(join(bin, "curl"), CURL_STAND_IN);
    await chmod(join(bin, "curl"), 0o755);
    shPath = `${bin}:${process.env.PATH ?? ""}`;
  }
  return shPath;
}

/** Runs shell text exactly as printed; resolves with its stdout. */
async function sh(script: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: await shellPath() };
  delete env.NODE_OPTIONS;
  return new Promise((resolve, reject) =>
    execFile("sh", ["-c", script], { env, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${script}\n${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

afterEach(async () => {
  for (const run of runs.splice(0)) await interrupt(run);
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => {});
});

describe("npm start", () => {
  it("runs the platform: the printed login gives a token, the token calls the API, Ctrl-C frees every port", async () => {
    const offset = await freeOffset();
    const prefix = `arena_start_${randomBytes(4).toString("hex")}_`;
    cleanups.push(async () => {
      await dropDatabases(["license", "stats", "gateway"].map((app) => `${prefix}${app}`));
      dropRedisKeys(`${prefix.replace(/_+$/, "")}:`);
    });
    const run = await startPlatform(["--no-build"], {
      ARENA_PORT_OFFSET: String(offset),
      ARENA_DATABASE_PREFIX: prefix,
    });
    const text = await banner(run);
    const gateway = `http://127.0.0.1:${8080 + offset}`;
    expect(text).toContain(`gateway     ${gateway}`);
    expect(text).toContain(`databases   ${prefix}license, ${prefix}stats, ${prefix}gateway`);

    const login = line(text, /^\s+curl -s \S+\/auth\/ /);
    const answer = JSON.parse(await sh(login)) as { AuthenticationResult: { IdToken: string } };
    expect(answer.AuthenticationResult.IdToken).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);

    // The game-server user logs in through the same command with its own name and password.
    const server = /role server \(a game server\): USERNAME (\S+) PASSWORD (\S+)/.exec(text);
    expect(server).not.toBeNull();
    const admin = /role admin: ClientId \S+ USERNAME (\S+) PASSWORD (\S+)/.exec(text)!;
    const serverLogin = JSON.parse(
      await sh(login.replace(admin[1]!, server![1]!).replace(admin[2]!, server![2]!)),
    ) as { AuthenticationResult: { IdToken: string } };
    expect(serverLogin.AuthenticationResult.IdToken).toMatch(/^eyJ/);
    expect(serverLogin.AuthenticationResult.IdToken).not.toBe(answer.AuthenticationResult.IdToken);

    const keep = line(text, /^\s+TOKEN=\$\(curl /);
    const call = line(text, /^\s+curl -s \S+ -H "Authorization: \$TOKEN"$/);
    expect(call).toContain(`${gateway}/seasons`);
    const seasons = JSON.parse(await sh(`${keep}\n${call}`)) as { currentSeason: string; seasons: unknown[] };
    expect(seasons.currentSeason).toBe("S1");
    expect(seasons.seasons).toHaveLength(1);

    const matches = JSON.parse(await sh(line(text, /^\s+curl -s \S+\/matchmaking\/basic /))) as {
      matchSuggestions: unknown[];
    };
    expect(matches.matchSuggestions).toHaveLength(1);

    run.child.kill("SIGINT");
    expect(await run.exit).toEqual({ code: 0, signal: null });
    for (const port of Object.values(BASE_PORTS)) expect(await portIsFree(port + offset)).toBe(true);
  });

  it("runs only the license service and the matchmaker (no Redis needed) with `start matchmaker`", async () => {
    const offset = await freeOffset();
    const prefix = `arena_start_${randomBytes(4).toString("hex")}_`;
    cleanups.push(() => dropDatabases([`${prefix}license`]));
    const run = await startPlatform(["matchmaker", "--no-build"], {
      ARENA_PORT_OFFSET: String(offset),
      ARENA_DATABASE_PREFIX: prefix,
      // Nothing listens there: the matchmaker mode must not need Redis.
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
    });
    const text = await banner(run);
    expect(text).toMatch(/license key lk_\S+/);
    expect(text).not.toContain("gateway");

    const curl = line(text, /^\s+curl -s \S+\/matchmaking\/basic /);
    expect(curl).toContain(`http://127.0.0.1:${8000 + offset}/matchmaking/basic`);
    const answer = JSON.parse(await sh(curl)) as {
      matchSuggestions: { server: string; teams: unknown[] }[];
      unmatchedTickets: unknown[];
    };
    expect(answer.matchSuggestions).toHaveLength(1);
    expect(answer.matchSuggestions[0]!.server).toBe("eu-1");
    expect(answer.unmatchedTickets).toEqual([]);
    expect(await portIsFree(8080 + offset)).toBe(true);
    expect(await portIsFree(8081 + offset)).toBe(true);

    run.child.kill("SIGINT");
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(await portIsFree(8000 + offset)).toBe(true);
    expect(await portIsFree(8082 + offset)).toBe(true);
  });

  it("says in one line how to start PostgreSQL when it is not running, and exits 1", async () => {
    const port = await closedPort();
    const run = await startPlatform(["--no-build"], {
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      ARENA_DATABASE_PREFIX: `arena_start_${randomBytes(4).toString("hex")}_`,
    });
    expect(await run.exit).toEqual({ code: 1, signal: null });
    const lines = run.output().split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^PostgreSQL is not running on 127\\.0\\.0\\.1:${port}; start it with: \\S`),
    );
    expect(lines[0]).toMatch(/pg_ctlcluster|systemctl|brew|docker|install PostgreSQL/);
    expect(run.output()).not.toMatch(/^ {4}at /m);
  });
});
