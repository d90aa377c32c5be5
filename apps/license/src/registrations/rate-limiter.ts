import type { Clock } from "../clock.js";
import type { Database } from "../db.js";

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the current window ends (what Retry-After says when not allowed). */
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters in PostgreSQL, so every replica counts against the same limit. One upsert
 * per hit; a caller can at most double its limit across a window boundary, which is fine for
 * registrations. Expired windows are deleted at most once per window per process.
 */
export class RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly windowMs: number,
  ) {}

  async hit(bucket: string, limit: number): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowStart = new Date(now - (now % this.windowMs));
    const expiresAt = new Date(windowStart.getTime() + this.windowMs);
    const rows = await this.db.$queryRaw<Array<{ hits: number }>>`
      INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at)
      VALUES (${bucket}, ${windowStart}, 1, ${expiresAt})
      ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
      RETURNING hits`;
    await this.sweep(now);
    const hits = Number(rows[0]?.hits ?? 1);
    return {
      allowed: hits <= limit,
      retryAfterSeconds: Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000)),
    };
  }

  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    await this.db.rateLimitCounter.deleteMany({ where: { expiresAt: { lt: new Date(now) } } });
  }
}

/**
 * The bucket part for a client address. IPv6 clients usually own a whole /64, so they are counted
 * per /64; IPv4 (and IPv4-mapped IPv6) per address.
 */
export function clientAddressBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(":")) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = ip.includes("::") && tail ? tail.split(":") : [];
  const missing = 8 - headParts.length - tailParts.length;
  const groups = ip.includes("::")
    ? [...headParts, ...Array(missing).fill("0"), ...tailParts]
    : ip.split(":");
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || "0", 16).toString(16))
    .join(":")}::/64`;
}
