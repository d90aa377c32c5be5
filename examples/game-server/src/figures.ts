/** What the server did, as `GameServer.figures()` and the command line report it. */
export interface Figures {
  /** Matches this server completed (each once). */
  matchesCompleted: number;
  /** matchSuggestion pushes the SDK handed over. */
  suggestionsReceived: number;
  /** Suggestions (or backfill replacements) for a match already in hand: the SDK should deliver none. */
  duplicates: number;
  /** Times the WebSocket came back after it was lost. */
  reconnects: number;
  /** Backfill requests made for dropped players. */
  backfills: number;
  /** Of those, the seats a replacement took before the match ended. */
  backfillsFilled: number;
  /**
   * Matches received but not completed: a call the platform refused or did not answer within
   * PERSIST_MS, or a match still under way when `stop()` gave up waiting (it is failed then).
   */
  failures: number;
  /** Players this server put in the queue (submissions that went through). */
  playersQueued: number;
}

export const noFigures = (): Figures => ({
  matchesCompleted: 0,
  suggestionsReceived: 0,
  duplicates: 0,
  reconnects: 0,
  backfills: 0,
  backfillsFilled: 0,
  failures: 0,
  playersQueued: 0,
});

/** One line, `key=value` pairs, for a log or a CI summary. */
export const formatFigures = (f: Figures): string =>
  Object.entries(f)
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
