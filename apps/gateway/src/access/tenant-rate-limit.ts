import type { Redis, RedisKeys } from "@arena/redis";
import { AppError } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

export interface TenantRateLimitOptions {
  redis: Redis;
  keys: RedisKeys;
  /** Requests per tenant per window, shared by every replica. */
  points: number;
  windowSeconds: number;
}

/**
 * Per-tenant request limits in Redis (a fixed window per tenant, counted atomically by
 * rate-limiter-flexible's Lua script), so one tenant cannot starve the others whatever replica
 * its requests reach. Over the limit: a 429 problem with `Retry-After`.
 */
export function tenantRateLimit(options: TenantRateLimitOptions) {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: options.keys.global("tenant-requests"),
    points: options.points,
    duration: options.windowSeconds,
    rejectIfRedisNotReady: true,
  });
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const tenantId = req.principal?.tenantId;
    if (tenantId === undefined) throw new Error("tenantRateLimit runs after authentication");
    try {
      const state = await limiter.consume(tenantId);
      res.setHeader("RateLimit-Limit", String(options.points));
      res.setHeader("RateLimit-Remaining", String(state.remainingPoints));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        throw new AppError("SERVICE_UNAVAILABLE", "The request rate could not be checked; try again", {
          cause: err,
          headers: { "Retry-After": "1" },
        });
      }
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new AppError(
        "RATE_LIMITED",
        `Tenant ${tenantId} sent more than ${options.points} requests in ${options.windowSeconds} s; retry in ${retryAfter} s`,
        { headers: { "Retry-After": String(retryAfter) }, extensions: { retryAfter } },
      );
    }
    next();
  };
}
