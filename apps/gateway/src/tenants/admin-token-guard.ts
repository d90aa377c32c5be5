import type { Redis, RedisKeys } from "@arena/redis";
import { AppError, requireBearerToken } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";
import { RateLimiterRedis } from "rate-limiter-flexible";

export interface AdminTokenGuardOptions {
  adminToken: string;
  redis: Redis;
  keys: RedisKeys;
  /** ADMIN_TOKEN_FAILURES_PER_ADDRESS. */
  failuresPerAddress: number;
  /** ADMIN_TOKEN_FAILURE_WINDOW_SECONDS. */
  windowSeconds: number;
}

/**
 * The admin API's door: `Authorization: Bearer $ADMIN_TOKEN`, with wrong tokens counted per client
 * address in Redis, so the limit holds across every replica. Once an address has sent
 * `failuresPerAddress` wrong tokens within the window, it gets a 429 with `Retry-After` until the
 * window ends, before any token is compared (the right one included: a lucky guess inside a block
 * gains nothing). Only a wrong token counts; a request without `Authorization` guesses nothing. If
 * Redis cannot be asked the door stays shut (503), as the tenant rate limit does; the CLI, which
 * needs only the database, still works.
 */
export function adminTokenGuard(options: AdminTokenGuardOptions) {
  const checkToken = requireBearerToken(options.adminToken, "arena-gateway-admin");
  const failures = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: options.keys.global("admin-token-failures", "address"),
    points: options.failuresPerAddress,
    duration: options.windowSeconds,
  });
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw new AppError("SERVICE_UNAVAILABLE", "Admin token failures could not be counted; try again", {
        cause: err,
        headers: { "Retry-After": "1" },
      });
    }
  };
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const address = req.ip ?? "unknown";
    const state = await counted(() => failures.get(address));
    if (state !== null && state.consumedPoints >= options.failuresPerAddress) {
      const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      throw new AppError(
        "RATE_LIMITED",
        `Too many wrong admin tokens from this address; retry in ${retryAfter} s`,
        { headers: { "Retry-After": String(retryAfter) }, extensions: { retryAfter } },
      );
    }
    try {
      checkToken(req, res, () => {});
    } catch (err) {
      // penalty() counts without refusing: the limit is enforced above, before the comparison.
      if (req.get("authorization") !== undefined) await counted(() => failures.penalty(address));
      throw err;
    }
    next();
  };
}
