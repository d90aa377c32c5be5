import { type Redis, type RedisKeys, redisScript } from "@arena/redis";
import { AppError, type Clock } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";

export interface TenantRateLimitOptions {
  redis: Redis;
  keys: RedisKeys;
  /** Requests per tenant per window, shared by every replica: for a tenant `limitsOf` says nothing of. */
  points: number;
  windowSeconds: number;
  /** A tenant's own budget and window (each replica's cached view); by default `points` per `windowSeconds`. */
  limitsOf?: (tenantId: string) => Promise<{ requests: number; windowSeconds: number }>;
  /** How often counts admitted locally are added to Redis (default 100 ms). */
  flushIntervalMs?: number;
  /** Ends this replica's view of a window; Redis' own expiry ends the count. */
  clock: Clock;
}

/** One Redis step: add `n` to a window's count (starting the window when new); its count and ms left. */
const ADD_SCRIPT = redisScript<{ tenantId: string }>({
  name: "gateway.tenant-requests.add",
  keys: (keys, { tenantId }) => [keys.tenant(tenantId, "requests")],
  example: { tenantId: "ten:{a}" },
  lua: `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if count == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
return {count, ttl}`,
});

/** Adds `n` to a window's count in Redis: its count and the ms left of it. */
async function addToWindow(
  redis: Redis,
  keys: RedisKeys,
  tenantId: string,
  n: number,
  windowMs: number,
): Promise<{ count: number; ttlMs: number }> {
  const [count, ttlMs] = (await ADD_SCRIPT.run(redis, keys, { tenantId }, n, windowMs)) as [number, number];
  return { count, ttlMs };
}

interface TenantWindow {
  /** The window's count in Redis at the last answer, this replica's pending requests not included. */
  known: number;
  /** Requests admitted here and not yet added in Redis. */
  pending: number;
  endsAtMs: number;
  /** The tenant's window length when its count started in Redis. */
  windowMs: number;
}

/**
 * Per-tenant request limits over every replica: a fixed window per tenant counted in Redis, so one
 * tenant cannot starve the others whatever replica its requests reach. Over the limit: a 429 problem
 * with `Retry-After`; Redis unreachable: a 503 (the limit is never skipped).
 *
 * A Redis round trip per request halved the gateway's throughput, so while a tenant has used less
 * than half of its window (as this replica last heard from Redis) its requests are counted locally
 * and added to Redis in one step every `flushIntervalMs`. From half the budget on, and for the first
 * request of each window, every request is counted in Redis before it is admitted, so the limit is
 * exact where it matters. The most a burst can overshoot is what all replicas admit locally within
 * one flush interval while jumping from under half the budget to over all of it.
 */
export function tenantRateLimit(options: TenantRateLimitOptions) {
  const { redis } = options;
  const everyTenant = { requests: options.points, windowSeconds: options.windowSeconds };
  const limitsOf = options.limitsOf ?? (async () => everyTenant);
  const now = () => options.clock.now().getTime();
  const windows = new Map<string, TenantWindow>();

  const add = (tenantId: string, n: number, windowMs: number) =>
    addToWindow(redis, options.keys, tenantId, n, windowMs);

  const flush = async () => {
    for (const [tenantId, window] of windows) {
      if (now() >= window.endsAtMs) {
        windows.delete(tenantId);
        continue;
      }
      const n = window.pending;
      if (n === 0) continue;
      // Taken before the call: a flush or a request counted in Redis meanwhile (close() during a
      // timer's flush, say) must not add the same requests a second time.
      window.pending -= n;
      try {
        const { count, ttlMs } = await add(tenantId, n, window.windowMs);
        window.known = count;
        window.endsAtMs = now() + ttlMs;
      } catch {
        // Pending again: the next flush, or the next request counted in Redis, adds it.
        window.pending += n;
      }
    }
  };
  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 100);
  timer.unref();

  /** Counts one request of the tenant: its remaining budget, or a 429/503 AppError. */
  const admit = async (tenantId: string): Promise<{ limit: number; remaining: number }> => {
    // A changed window length applies from the tenant's next window: Redis keeps the current one's expiry.
    const { requests: points, windowSeconds } = await limitsOf(tenantId);
    const windowMs = windowSeconds * 1000;
    let window = windows.get(tenantId);
    if (window !== undefined && now() >= window.endsAtMs) {
      windows.delete(tenantId);
      window = undefined;
    }
    const used = window === undefined ? points : window.known + window.pending;
    if (window !== undefined && used + 1 <= points / 2 && redis.status === "ready") {
      window.pending += 1;
      return { limit: points, remaining: points - used - 1 };
    }
    // Counted in Redis now, with whatever this replica admitted locally since its last flush.
    // Taken before the call, as in flush, so a flush meanwhile does not add them again.
    const pending = window?.pending ?? 0;
    if (window !== undefined) window.pending -= pending;
    let answer: { count: number; ttlMs: number };
    try {
      answer = await add(tenantId, pending + 1, windowMs);
    } catch (err) {
      if (window !== undefined) window.pending += pending;
      throw new AppError("SERVICE_UNAVAILABLE", "The request rate could not be checked; try again", {
        cause: err,
        headers: { "Retry-After": "1" },
      });
    }
    const current = windows.get(tenantId) ?? { known: 0, pending: 0, endsAtMs: 0, windowMs };
    current.windowMs = windowMs;
    current.known = answer.count;
    current.endsAtMs = now() + answer.ttlMs;
    windows.set(tenantId, current);
    if (answer.count > points) {
      const retryAfter = Math.max(1, Math.ceil(answer.ttlMs / 1000));
      throw new AppError(
        "RATE_LIMITED",
        `Tenant ${tenantId} sent more than ${points} requests in ${windowSeconds} s; retry in ${retryAfter} s`,
        { headers: { "Retry-After": String(retryAfter) }, extensions: { retryAfter } },
      );
    }
    return { limit: points, remaining: Math.max(0, points - answer.count) };
  };

  /** Counts an authenticated request and sets its RateLimit headers, or throws the 429/503. */
  const count = async (req: Request, res: Response): Promise<void> => {
    const tenantId = req.principal?.tenantId;
    if (tenantId === undefined) throw new Error("tenantRateLimit runs after authentication");
    const { limit: points, remaining } = await admit(tenantId);
    res.setHeader("RateLimit-Limit", String(points));
    res.setHeader("RateLimit-Remaining", String(remaining));
  };
  const limit = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    await count(req, res);
    next();
  };
  return Object.assign(limit, {
    /** The same count for callers that are not express routes (WebSocket messages). */
    admit,
    /** The middleware's work without `next`, for a route that runs its checks in one handler. */
    count,
    /** Stops the flush timer after adding what is pending (on shutdown). */
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  });
}
