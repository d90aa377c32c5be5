import type { BackfillingMatchSuggestionPayload as BackfillSuggestion } from "@arena/client";

/**
 * The backfill requests this server waits on, by the id it gave each. A request is expected
 * before it is sent: the platform may find the replacement and push it before the request's own
 * answer arrives. A second push for one request is a duplicate; one for a request given up on is
 * late (the match ended without the replacement).
 */
export class BackfillWaits {
  private readonly expected = new Map<
    string,
    { push: Promise<BackfillSuggestion>; resolve: (s: BackfillSuggestion) => void }
  >();
  private readonly pushed = new Set<string>();

  /** From now on a push for this request is awaited. */
  expect(backfillingRequestId: string): void {
    let resolve!: (s: BackfillSuggestion) => void;
    const push = new Promise<BackfillSuggestion>((r) => {
      resolve = r;
    });
    this.expected.set(backfillingRequestId, { push, resolve });
  }

  /**
   * The replacement's push, if it came already or comes within `ms`; undefined otherwise. The
   * request is no longer awaited afterwards.
   */
  async within(backfillingRequestId: string, ms: number): Promise<BackfillSuggestion | undefined> {
    const entry = this.expected.get(backfillingRequestId);
    if (!entry) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      return await Promise.race([entry.push, timeout]);
    } finally {
      clearTimeout(timer);
      this.expected.delete(backfillingRequestId);
    }
  }

  /** The request could not be made: nothing is awaited for it. */
  forget(backfillingRequestId: string): void {
    this.expected.delete(backfillingRequestId);
  }

  /** A push arrived: "awaited", "duplicate" (its request was pushed before) or "late" (given up on). */
  arrived(push: BackfillSuggestion): "awaited" | "duplicate" | "late" {
    if (this.pushed.has(push.backfillingRequestId)) return "duplicate";
    this.pushed.add(push.backfillingRequestId);
    const entry = this.expected.get(push.backfillingRequestId);
    if (!entry) return "late";
    entry.resolve(push);
    return "awaited";
  }
}
