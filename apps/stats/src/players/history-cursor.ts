/** Where the previous history page ended: opaque to clients (base64url JSON). */
export interface HistoryCursor {
  completedAt: Date;
  matchId: string;
}

export function encodeHistoryCursor(cursor: HistoryCursor): string {
  return Buffer.from(JSON.stringify([cursor.completedAt.toISOString(), cursor.matchId])).toString(
    "base64url",
  );
}

/** Match ids are UUIDs in lower case, as stats stores them. */
const MATCH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The cursor a client sent back, or undefined when it is not one we issued. Its text is the
 * client's, so it is checked as any input is: a match id and a time PostgreSQL can compare (no
 * NUL, no year outside its timestamps; no match completed before 1970).
 */
export function decodeHistoryCursor(text: string): HistoryCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [completedAt, matchId] = value as unknown[];
    if (typeof completedAt !== "string" || typeof matchId !== "string" || !MATCH_ID.test(matchId))
      return undefined;
    const date = new Date(completedAt);
    return Number.isNaN(date.getTime()) || date.getTime() < 0 ? undefined : { completedAt: date, matchId };
  } catch {
    return undefined;
  }
}
