/** How long to wait before reconnect attempt `attempt` (1, 2, ...). */
export interface RealtimeBackoff {
  /** The ceiling of the first attempt's wait. */
  baseMs: number;
  /** The ceiling no attempt's wait passes. */
  maxMs: number;
}

/**
 * "Full jitter": a uniform wait between 0 and min(max, base * 2^(attempt-1)). Every game server a
 * gateway restart disconnects at once comes back spread over the window instead of in one wave.
 */
export function realtimeBackoffDelay(
  attempt: number,
  backoff: RealtimeBackoff,
  random = Math.random,
): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
