import { setTimeout as sleep } from "node:timers/promises";
import { ArenaApiError, type CallOptions, DeadlineError, NetworkError } from "@arena/client";

/**
 * Whether the platform may answer this call if it is made again: no answer came (the gateway is
 * restarting), or the answer says so (429 with its Retry-After, 502/503/504). A 4xx is the call's own
 * fault and stays one.
 */
export function worthRetrying(err: unknown): boolean {
  if (err instanceof NetworkError || err instanceof DeadlineError) return true;
  return err instanceof ArenaApiError && (err.status === 429 || err.status >= 500);
}

/**
 * Runs `call` until it answers, for up to `forMs`, or until `signal` ends it (the server stops).
 * The SDK already retries each call a few times within its deadline; this outer loop carries a
 * match across a gateway restart, which takes longer. Only idempotent calls go through here:
 * confirming, completing, a backfill request with our own id, reading and cancelling it, all of
 * which the platform answers the same when repeated.
 */
export async function persist<T>(
  call: (options: CallOptions) => Promise<T>,
  forMs: number,
  signal: AbortSignal,
): Promise<T> {
  const giveUpAt = Date.now() + forMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call({ signal });
    } catch (err) {
      if (!worthRetrying(err) || Date.now() >= giveUpAt || signal.aborted) throw err;
      // 100 ms, doubling to 2 s: a restarted gateway is found within a couple of seconds of coming back.
      await sleep(Math.min(2000, 100 * 2 ** attempt), undefined, { signal });
    }
  }
}
