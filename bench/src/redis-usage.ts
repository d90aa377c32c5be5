import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { sleep } from "./queue-servers.js";

export interface RedisUsage {
  /** INFO cpu growth (used_cpu_sys + used_cpu_user): the server's CPU. */
  cpuSeconds: number;
  /** INFO commandstats growth, busiest first. */
  commands: Array<{ command: string; calls: number; usec: number }>;
  /** INFO memory used_memory at the start, at the end of the load and after the drain. */
  usedMemoryBytes: { start: number; endOfLoad: number; end: number };
  /** Each family of the benchmark's keys at the end (ids folded): keys, elements, bytes. */
  keyFamilies: Array<{ family: string; type: string; keys: number; elements: number; bytes: number }>;
}

/** A Redis of the benchmark's own, so its INFO figures count the benchmark's commands only. */
export interface PrivateRedis {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts Debian's `redis-server` on a free loopback port, without persistence (as the shared
 * local server runs); resolves once it answers PING.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "arena-bench-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const { Redis } = await import("ioredis");
  for (let tries = 0; tries < 50; tries++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {}); // refused until the server listens: the loop tries again
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return {
        url,
        process: child,
        stop: async () => {
          const exited = new Promise((r) => child.once("exit", r));
          child.kill("SIGTERM");
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch {
      probe.disconnect();
      await sleep(100);
    }
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not start on port ${port}`);
}

/** `field:value` lines of an INFO section. */
function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const at = line.indexOf(":");
    if (at > 0 && !line.startsWith("#")) fields.set(line.slice(0, at), line.slice(at + 1));
  }
  return fields;
}

interface RedisSnapshot {
  cpu: number;
  commands: Map<string, { calls: number; usec: number }>;
  usedMemory: number;
}

async function snapshot(redis: Redis): Promise<RedisSnapshot> {
  const cpu = infoFields(await redis.info("cpu"));
  const commands = new Map<string, { calls: number; usec: number }>();
  for (const [field, value] of infoFields(await redis.info("commandstats"))) {
    const calls = /calls=(\d+)/.exec(value);
    const usec = /usec=(\d+)/.exec(value);
    commands.set(field.replace(/^cmdstat_/, ""), { calls: Number(calls?.[1]), usec: Number(usec?.[1]) });
  }
  return {
    cpu: Number(cpu.get("used_cpu_sys")) + Number(cpu.get("used_cpu_user")),
    commands,
    usedMemory: Number(infoFields(await redis.info("memory")).get("used_memory")),
  };
}

/** A key's family: the prefix dropped, the `{tenant:game}` hash tag and ids folded. */
const familyOf = (key: string, prefix: string) =>
  key
    .slice(prefix.length)
    .replace(/^\{[^}]*\}/, "{…}")
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "…")
    .replace(/:[A-Za-z0-9_-]{40,}/g, ":…"); // the login throttles' digests

const ELEMENT_COUNT: Record<string, string> = {
  zset: "ZCARD",
  hash: "HLEN",
  set: "SCARD",
  list: "LLEN",
  stream: "XLEN",
  string: "STRLEN",
};

/** Every key under `prefix`, grouped by family: how many, their elements and MEMORY USAGE. */
async function keyFamilies(redis: Redis, prefix: string): Promise<RedisUsage["keyFamilies"]> {
  const families = new Map<string, RedisUsage["keyFamilies"][number]>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const bytes = Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
      const counter = ELEMENT_COUNT[type];
      const elements = counter === undefined ? 0 : Number(await redis.call(counter, key));
      const family = familyOf(key, prefix);
      const entry = families.get(family) ?? { family, type, keys: 0, elements: 0, bytes: 0 };
      entry.keys++;
      entry.elements += elements;
      entry.bytes += bytes;
      families.set(family, entry);
    }
  } while (cursor !== "0");
  return [...families.values()].sort((a, b) => b.bytes - a.bytes);
}

/**
 * What the benchmark costs Redis, from `start()` through `endOfLoad()` to `finish()`. The keys are
 * walked (SCAN, MEMORY USAGE) after the last figures are read, so the walk is not counted; INFO,
 * the meter's own command (and each client's ready check), is left out of the commands.
 */
export class RedisMeter {
  private before: RedisSnapshot | undefined;
  private usedMemoryAtEndOfLoad: number | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async start(): Promise<void> {
    this.before = await snapshot(this.redis);
  }

  /** Memory while the load still runs into the queue (before the drain). */
  async endOfLoad(): Promise<void> {
    this.usedMemoryAtEndOfLoad = (await snapshot(this.redis)).usedMemory;
  }

  async finish(): Promise<RedisUsage> {
    const after = await snapshot(this.redis);
    const before = this.before!;
    const commands = [...after.commands].map(([command, { calls, usec }]) => ({
      command,
      calls: calls - (before.commands.get(command)?.calls ?? 0),
      usec: usec - (before.commands.get(command)?.usec ?? 0),
    }));
    return {
      cpuSeconds: after.cpu - before.cpu,
      commands: commands.filter((c) => c.calls > 0 && c.command !== "info").sort((a, b) => b.usec - a.usec),
      usedMemoryBytes: {
        start: before.usedMemory,
        endOfLoad: this.usedMemoryAtEndOfLoad ?? after.usedMemory,
        end: after.usedMemory,
      },
      keyFamilies: await keyFamilies(this.redis, this.prefix),
    };
  }
}
