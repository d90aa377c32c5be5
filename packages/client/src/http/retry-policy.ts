/**
 * When a failed attempt is tried again, and after how long. Pure functions: the HTTP client asks
 * them after each attempt, the tests check them alone.
 */

export interface RetryOptions {
  /** Attempts per call, the first included (a 401's retry with a fresh token is not counted). */
  maxAttempts: number;
  /** The first backoff's upper bound; each later one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
};

/** What ended an attempt: an HTTP status, or no answer at all. */
export type AttemptOutcome = { status: number; retryAfter?: string | null } | { network: true };

/**
 * Exponential backoff with full jitter (a uniform delay in [0, min(max, base·2^(attempt−1))]):
 * many game servers failing at once spread their retries instead of coming back together.
 */
export function backoffDelay(
  attempt: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** A Retry-After header (seconds, or an HTTP date) in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(
  header: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The delay before the next attempt, or undefined when the outcome is final:
 * - 429 and 503 say the request was not processed: retried for every operation, after
 *   Retry-After (backoff when there is none);
 * - 502, 504 and no answer may come after the request was processed: retried only for an
 *   operation that is safe to repeat, with backoff;
 * - anything else is the answer.
 */
export function retryDelay(
  outcome: AttemptOutcome,
  attempt: number,
  repeatable: boolean,
  options: RetryOptions,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= options.maxAttempts) return undefined;
  if ("network" in outcome) return repeatable ? backoffDelay(attempt, options, random) : undefined;
  if (outcome.status === 429 || outcome.status === 503) {
    const after = retryAfterMs(outcome.retryAfter);
    if (after === undefined) return backoffDelay(attempt, options, random);
    return after <= options.maxRetryAfterMs ? after : undefined;
  }
  if ((outcome.status === 502 || outcome.status === 504) && repeatable) {
    return backoffDelay(attempt, options, random);
  }
  return undefined;
}
