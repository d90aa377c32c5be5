import type { Redis } from "./redis-client.js";
import type { RedisKeys } from "./redis-keys.js";

/**
 * Every Lua script the platform runs is declared with `redisScript`, together with the function
 * that builds its KEYS from what the call site knows. The code calls scripts only through `run`,
 * which uses that function, so the keys a test computes from `example` are built exactly as in
 * production: the test asserts that every registered script's keys share one cluster slot (a
 * script touching two slots fails on a cluster with CROSSSLOT), and another test refuses a raw
 * EVAL or defineCommand anywhere else in the code.
 */
export interface RedisScriptDefinition<Ids> {
  /** Unique over the platform, e.g. `stats.board.write`. */
  name: string;
  lua: string;
  /** The script's KEYS for one call. */
  keys(keys: RedisKeys, ids: Ids): readonly string[];
  /** The ids of a typical call (with ids that need escaping), for the one-slot test. */
  example: Ids;
}

type ScriptCommand = (numberOfKeys: number, ...keysAndArgs: Array<string | number>) => Promise<unknown>;

// Kept on globalThis: a process may load this module twice (its source and its build, or a test
// runner's separate module instances), and every copy must see every script.
const REGISTRY = Symbol.for("arena.redisScripts");
const shared = globalThis as { [REGISTRY]?: Map<string, RedisScript<never>> };
shared[REGISTRY] ??= new Map();
const registry = shared[REGISTRY];

export class RedisScript<Ids> {
  /** The command ioredis defines on a client: EVALSHA, and EVAL once when the node lacks the script. */
  private readonly command: string;

  constructor(readonly definition: RedisScriptDefinition<Ids>) {
    this.command = `arenaScript:${definition.name}`;
  }

  get name(): string {
    return this.definition.name;
  }

  /** The script's KEYS for these ids. */
  keysOf(keys: RedisKeys, ids: Ids): readonly string[] {
    return this.definition.keys(keys, ids);
  }

  /** Runs the script with the KEYS of `ids` and these ARGV. */
  run(redis: Redis, keys: RedisKeys, ids: Ids, ...args: Array<string | number>): Promise<unknown> {
    const scriptKeys = this.keysOf(keys, ids);
    const client = redis as unknown as Record<string, ScriptCommand | undefined>;
    let command = client[this.command];
    if (command === undefined) {
      // No numberOfKeys: the count is passed with each call.
      redis.defineCommand(this.command, { lua: this.definition.lua });
      command = client[this.command]!;
    }
    return command.call(redis, scriptKeys.length, ...scriptKeys, ...args);
  }
}

/** Declares (and registers) a script. */
export function redisScript<Ids>(definition: RedisScriptDefinition<Ids>): RedisScript<Ids> {
  const existing = registry.get(definition.name);
  if (existing !== undefined && existing.definition.lua !== definition.lua) {
    throw new Error(`Two Redis scripts are named ${definition.name}`);
  }
  const script = new RedisScript(definition);
  registry.set(definition.name, script as unknown as RedisScript<never>);
  return script;
}

/** Every script declared so far (by the modules loaded in this process). */
export function registeredScripts(): ReadonlyArray<RedisScript<unknown>> {
  return [...registry.values()] as unknown as ReadonlyArray<RedisScript<unknown>>;
}
