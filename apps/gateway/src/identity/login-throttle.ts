import type { Redis, RedisKeys } from "@arena/redis";
import { RateLimiterRedis, type RateLimiterRes } from "rate-limiter-flexible";
import { normalizeUsername } from "./identity-store.js";

export interface LoginThrottleOptions {
  redis: Redis;
  keys: RedisKeys;
  windowSeconds: number;
  perUsername: number;
  perAddress: number;
}

/**
 * Failed logins counted per username and per client address in Redis, so the limit holds across
 * every gateway replica. Only failures count: a game server that logs in correctly is never
 * throttled, and a success clears its username's count. Once either count reaches its limit,
 * logins for that username (or from that address) are refused until the window ends, before any
 * password is checked, so guessing stops costing us scrypt time too.
 */
export class LoginThrottle {
  private readonly byUsername: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;

  constructor(options: LoginThrottleOptions) {
    const common = {
      storeClient: options.redis,
      duration: options.windowSeconds,
      rejectIfRedisNotReady: true,
    };
    this.byUsername = new RateLimiterRedis({
      ...common,
      keyPrefix: options.keys.global("login-failures", "username"),
      points: options.perUsername,
    });
    this.byAddress = new RateLimiterRedis({
      ...common,
      keyPrefix: options.keys.global("login-failures", "address"),
      points: options.perAddress,
    });
  }

  /** Seconds until a login may be tried again, or 0 when it may be tried now. */
  async blockedFor(username: string | undefined, address: string): Promise<number> {
    const [user, addr] = await Promise.all([
      username === undefined ? null : this.byUsername.get(normalizeUsername(username)),
      this.byAddress.get(address),
    ]);
    const waits = [exhausted(user, this.byUsername.points), exhausted(addr, this.byAddress.points)];
    return Math.max(...waits);
  }

  async recordFailure(username: string | undefined, address: string): Promise<void> {
    // penalty() counts without rejecting: the limit is enforced by blockedFor() before the check.
    await Promise.all([
      username === undefined ? undefined : this.byUsername.penalty(normalizeUsername(username)),
      this.byAddress.penalty(address),
    ]);
  }

  async recordSuccess(username: string): Promise<void> {
    await this.byUsername.delete(normalizeUsername(username));
  }
}

function exhausted(state: RateLimiterRes | null, points: number): number {
  if (!state || state.consumedPoints < points) return 0;
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}
