import { randomUUID } from "node:crypto";
import { type Redis, type RedisKeys, redisScript } from "@arena/redis";

interface GameRef {
  tenantId: string;
  gameId: string;
}

const lockKey = (keys: RedisKeys, { tenantId, gameId }: GameRef) =>
  keys.game(tenantId, gameId, "matchmaking-lock");

// Deletes or extends the lock only while it is still ours (another replica may hold it after our
// lease ran out).
const lockScript = (name: string, lua: string) =>
  redisScript<GameRef>({
    name: `stats.matchmaking-lock.${name}`,
    lua,
    keys: (keys, game) => [lockKey(keys, game)],
    example: { tenantId: "ten:{a}", gameId: "ranked 2v2" },
  });
const RELEASE = lockScript(
  "release",
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`,
);
const EXTEND = lockScript(
  "extend",
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`,
);

/**
 * One game's matchmaking lock: a Redis key with a short lease (`SET NX PX`), so that with several
 * stats replicas one processes a game at a time, and a dead replica's games are free again once
 * its lease runs out. The lock saves work; correctness does not depend on it (PostgreSQL's
 * conditional `waiting → matched` update keeps a player out of two matches even if two replicas
 * ever ran at once).
 */
export class GameLocks {
  /** This process's token: a lease it set is recognisably its own. */
  private readonly token = randomUUID();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly leaseMs: number,
  ) {}

  /** Takes the game's lock if free; false when another replica holds it. */
  async acquire(tenantId: string, gameId: string): Promise<boolean> {
    const key = lockKey(this.keys, { tenantId, gameId });
    const set = await this.redis.set(key, this.token, "PX", this.leaseMs, "NX");
    return set === "OK";
  }

  /** Extends a lease still held (a long tick); false when it was lost. */
  async extend(tenantId: string, gameId: string): Promise<boolean> {
    const game = { tenantId, gameId };
    return (await EXTEND.run(this.redis, this.keys, game, this.token, this.leaseMs)) === 1;
  }

  async release(tenantId: string, gameId: string): Promise<void> {
    await RELEASE.run(this.redis, this.keys, { tenantId, gameId }, this.token);
  }
}
