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

/** The cursor a client sent back, or undefined when it is not one we issued. */
export function decodeHistoryCursor(text: string): HistoryCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [completedAt, matchId] = value as unknown[];
    if (typeof completedAt !== "string" || typeof matchId !== "string" || matchId.length === 0)
      return undefined;
    const date = new Date(completedAt);
    return Number.isNaN(date.getTime()) ? undefined : { completedAt: date, matchId };
  } catch {
    return undefined;
  }
}
