/** Where the previous page of the license list ended: opaque to clients (base64url JSON). */
export interface ListCursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString("base64url");
}

/** The cursor a client sent back, or undefined when it is not one we issued. */
export function decodeCursor(text: string): ListCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== "string" || typeof id !== "string" || !/^lic_[0-9A-Za-z]+$/.test(id))
      return undefined;
    const date = new Date(createdAt);
    return Number.isNaN(date.getTime()) ? undefined : { createdAt: date, id };
  } catch {
    return undefined;
  }
}
