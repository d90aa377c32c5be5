import type { BackfillingMatchSuggestionPayload as BackfillSuggestion } from "@arena/client";

/**
 * The backfill requests this server waits on, by the id it gave each: a `backfillingMatchSuggestion`
 * push settles its request's wait. A second push for one request is a duplicate; one for a request
 * given up on is late (the match ended without the replacement).
 */
export class BackfillWaits {
  private readonly waiting = new Map<string, (s: BackfillSuggestion) => void>();
  private readonly pushed = new Set<string>();

  /** Resolves with the replacement's push, or with undefined once `ms` have passed without it. */
  waitFor(backfillingRequestId: string, ms: number): Promise<BackfillSuggestion | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(backfillingRequestId);
        resolve(undefined);
      }, ms);
      this.waiting.set(backfillingRequestId, (s) => {
        clearTimeout(timer);
        resolve(s);
      });
    });
  }

  /** A push arrived: "awaited", "duplicate" (its request was pushed before) or "late" (given up on). */
  arrived(push: BackfillSuggestion): "awaited" | "duplicate" | "late" {
    if (this.pushed.has(push.backfillingRequestId)) return "duplicate";
    this.pushed.add(push.backfillingRequestId);
    const resolve = this.waiting.get(push.backfillingRequestId);
    if (!resolve) return "late";
    this.waiting.delete(push.backfillingRequestId);
    resolve(push);
    return "awaited";
  }
}
