import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  closeRedis,
  createRedis,
  type Redis,
  type RedisScript,
  redisKeys,
  redisScript,
  registeredScripts,
} from "../src/index.js";
import { startTestCluster, type TestCluster } from "../src/testing.js";

/**
 * Every Lua script of the platform, on a real Redis Cluster: the keys each is called with (built
 * by the script's own key builder, the one its call sites use) must hash to one slot, or the
 * script fails with CROSSSLOT on a cluster. Scripts are found by reading the source: every module
 * that declares one with `redisScript` is loaded, and a script run any other way fails the test.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const SCRIPT_HOME = "packages/redis/src/redis-script.ts";
/** Running Lua without the registry: EVAL/EVALSHA/FCALL calls, ioredis' defineCommand. */
const RAW_SCRIPT_CALL =
  /\.(eval|evalsha|eval_ro|evalsha_ro|evalRo|evalshaRo|fcall|fcall_ro|script)\s*\(|defineCommand\s*\(|["'`](EVAL|EVALSHA|FCALL)["'`]/;

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".d.ts") && !path.endsWith(".test.ts"))
        files.push(path);
    }
  };
  for (const group of ["apps", "packages"]) {
    for (const pkg of readdirSync(join(root, group))) {
      const src = join(root, group, pkg, "src");
      if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
    }
  }
  return files;
}

/** Scripts whose keys fall in more than one slot, with the slots. */
async function scriptsOverSeveralSlots(
  scripts: ReadonlyArray<RedisScript<unknown>>,
  slotOf: (key: string) => Promise<number>,
): Promise<string[]> {
  const keys = redisKeys("arena:");
  const broken: string[] = [];
  for (const script of scripts) {
    const scriptKeys = script.keysOf(keys, script.definition.example);
    const slots = new Set(await Promise.all(scriptKeys.map(slotOf)));
    if (scriptKeys.length === 0 || slots.size !== 1) {
      broken.push(`${script.name}: ${scriptKeys.join(", ")} → slots ${[...slots].join(", ")}`);
    }
  }
  return broken;
}

describe("Redis scripts on a cluster", () => {
  let cluster: TestCluster;
  let redis: Redis;
  const files = sourceFiles();
  const slotOf = (key: string) => redis.cluster("KEYSLOT", key);

  beforeAll(async () => {
    cluster = await startTestCluster({ replicasPerMaster: 0 });
    redis = createRedis({ REDIS_CLUSTER_NODES: cluster.seeds }, { queueWhileDisconnected: true });
    for (const file of files) {
      if (/\bredisScript\s*[<(]/.test(readFileSync(file, "utf8"))) await import(file);
    }
  }, 60_000);
  afterAll(async () => {
    await closeRedis(redis);
    await cluster.stop();
  });

  it("runs Lua only through redisScript, so the check below sees every script", () => {
    const raw = files
      .filter((file) => relative(root, file) !== SCRIPT_HOME)
      .filter((file) => RAW_SCRIPT_CALL.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file));
    expect(raw).toEqual([]);
  });

  it("finds the scripts of stats, the gateway and the push fan-out", () => {
    const names = registeredScripts().map((s) => s.name);
    for (const prefix of ["stats.board.", "stats.matchmaking-lock.", "gateway.login-throttle.", "push."]) {
      expect(names.some((n) => n.startsWith(prefix))).toBe(true);
    }
    expect(names).toContain("gateway.tenant-requests.add");
  });

  it("calls every script with keys of one hash slot", async () => {
    expect(await scriptsOverSeveralSlots(registeredScripts(), slotOf)).toEqual([]);
  });

  it("reports a script whose keys fall in two slots", async () => {
    const split = redisScript<{ tenantId: string }>({
      name: "test.split",
      lua: "return 1",
      keys: (keys, { tenantId }) => [keys.tenant(tenantId, "a"), keys.global("b")],
      example: { tenantId: "ten_1" },
    });
    const [report] = await scriptsOverSeveralSlots([split as RedisScript<unknown>], slotOf);
    expect(report).toMatch(/^test\.split: arena:\{ten_1\}:a, arena:b → slots \d+, \d+$/);
    // And the cluster refuses to run it.
    await expect(split.run(redis, redisKeys("arena:"), { tenantId: "ten_1" })).rejects.toThrow(/CROSSSLOT/);
  });
});
