/**
 * Finds, in the raw UTF-8 text of a matchmaking request, where each ticket of the top-level
 * `tickets` array starts and ends, and where its `rating` and `exactEqualityConstraints` values
 * are. The answer is then assembled from these byte ranges instead of serializing every ticket
 * again: the tickets go back exactly as the client wrote them, at the cost of a memory copy.
 *
 * The body has already been parsed by JSON.parse and validated, so the scanner only follows
 * structure, in one pass over the bytes with no calls per byte. Anything it does not expect makes
 * it give up (null) and the caller serializes the parsed tickets instead. That includes a ticket
 * that repeats a key (`"servers"` twice): JSON.parse keeps the last value, so echoing the text
 * would answer with a ticket other than the one matched.
 */

export interface TicketSpans {
  count: number;
  /** Byte offsets: ticket i is `start[i] .. end[i]` (end exclusive, just past its `}`). */
  start: Int32Array;
  end: Int32Array;
  /** The rating value's text; `-1` when absent. */
  ratingStart: Int32Array;
  ratingEnd: Int32Array;
  /** The exactEqualityConstraints value's text; `-1` when the ticket has none. */
  constraintsStart: Int32Array;
  constraintsEnd: Int32Array;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const KEY_OTHER = 0;
const KEY_TICKETS = 1;
const KEY_RATING = 2;
const KEY_CONSTRAINTS = 3;

const TICKETS = Buffer.from("tickets");
const RATING = Buffer.from("rating");
const CONSTRAINTS = Buffer.from("exactEqualityConstraints");
const MAX_DEPTH = 256;
/** A ticket with more keys than this is answered by the parsed-ticket writer instead. */
const MAX_TICKET_KEYS = 32;

function keyEquals(raw: Uint8Array, start: number, end: number, name: Uint8Array): boolean {
  if (end - start !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (raw[start + k] !== name[k]) return false;
  return true;
}

/** The key between `start..end` (no quotes) as one of the keys we track. */
function keyKind(raw: Buffer, start: number, end: number, escaped: boolean, depth: number): number {
  if (escaped) {
    const key = JSON.parse(raw.toString("utf8", start - 1, end + 1)) as string;
    if (depth === 1) return key === "tickets" ? KEY_TICKETS : KEY_OTHER;
    return key === "rating" ? KEY_RATING : key === "exactEqualityConstraints" ? KEY_CONSTRAINTS : KEY_OTHER;
  }
  if (depth === 1) return keyEquals(raw, start, end, TICKETS) ? KEY_TICKETS : KEY_OTHER;
  if (keyEquals(raw, start, end, RATING)) return KEY_RATING;
  return keyEquals(raw, start, end, CONSTRAINTS) ? KEY_CONSTRAINTS : KEY_OTHER;
}

/** Whether the key `from..to` equals one of the first `count` keys recorded. */
function repeatsKey(
  raw: Buffer,
  from: number,
  to: number,
  keyFrom: Int32Array,
  keyTo: Int32Array,
  count: number,
): boolean {
  const length = to - from;
  for (let k = 0; k < count; k++) {
    const start = keyFrom[k]!;
    if (keyTo[k]! - start !== length) continue;
    let same = true;
    for (let j = 0; j < length && same; j++) same = raw[start + j] === raw[from + j];
    if (same) return true;
  }
  return false;
}

export function scanTicketSpans(raw: Buffer, expectedCount: number): TicketSpans | null {
  const start = new Int32Array(expectedCount);
  const end = new Int32Array(expectedCount);
  const ratingStart = new Int32Array(expectedCount).fill(-1);
  const ratingEnd = new Int32Array(expectedCount).fill(-1);
  const constraintsStart = new Int32Array(expectedCount).fill(-1);
  const constraintsEnd = new Int32Array(expectedCount).fill(-1);
  const isObject = new Uint8Array(MAX_DEPTH + 1);
  // The current ticket's keys (byte ranges), to refuse repeated ones.
  const keyFrom = new Int32Array(MAX_TICKET_KEYS);
  const keyTo = new Int32Array(MAX_TICKET_KEYS);
  let keyCount = 0;

  const n = raw.length;
  let count = 0;
  let depth = 0;
  // The last structural byte: a string right after `{` or `,` inside an object is a key.
  let last = 0;
  let rootKey = KEY_OTHER;
  let ticketKey = KEY_OTHER;
  // True while inside the `tickets` array of the root object.
  let inTickets = false;
  let i = 0;
  while (i < n) {
    const b = raw[i]!;
    if (b === QUOTE) {
      const from = i + 1;
      let escaped = false;
      i = from;
      for (;;) {
        if (i >= n) return null;
        const c = raw[i]!;
        if (c === BACKSLASH) {
          escaped = true;
          i += 2;
        } else if (c === QUOTE) break;
        else i++;
      }
      const to = i;
      i++;
      if (isObject[depth] === 1 && (last === OPEN_OBJECT || last === COMMA)) {
        if (depth === 1) rootKey = keyKind(raw, from, to, escaped, 1);
        else if (depth === 3 && inTickets) {
          // Escaped keys could spell a repeated key differently: leave those tickets to JSON.stringify.
          if (
            escaped ||
            keyCount === MAX_TICKET_KEYS ||
            repeatsKey(raw, from, to, keyFrom, keyTo, keyCount)
          ) {
            return null;
          }
          keyFrom[keyCount] = from;
          keyTo[keyCount++] = to;
          ticketKey = keyKind(raw, from, to, false, 3);
        }
        last = QUOTE;
      } else {
        if (depth === 3 && inTickets && ticketKey !== KEY_OTHER) {
          // A string rating or constraints never passes validation; refuse rather than guess.
          return null;
        }
        last = 0;
      }
      continue;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (depth === MAX_DEPTH) return null;
      depth++;
      isObject[depth] = b === OPEN_OBJECT ? 1 : 0;
      if (depth === 2 && rootKey === KEY_TICKETS && last === COLON) {
        if (b !== OPEN_ARRAY) return null;
        // JSON.parse keeps the last of repeated keys; so do we.
        inTickets = true;
        count = 0;
        ratingStart.fill(-1);
        constraintsStart.fill(-1);
      } else if (depth === 3 && inTickets) {
        if (b !== OPEN_OBJECT || count >= expectedCount) return null;
        start[count] = i;
        ticketKey = KEY_OTHER;
        keyCount = 0;
      } else if (depth === 4 && inTickets && last === COLON && ticketKey === KEY_CONSTRAINTS) {
        constraintsStart[count] = i;
      }
      last = b;
      i++;
      continue;
    }
    if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      if (depth === 0) return null;
      if (inTickets) {
        if (depth === 3) end[count++] = i + 1;
        else if (depth === 4 && ticketKey === KEY_CONSTRAINTS && constraintsStart[count]! >= 0) {
          constraintsEnd[count] = i + 1;
          ticketKey = KEY_OTHER;
        } else if (depth === 2) inTickets = false;
      }
      depth--;
      last = b;
      i++;
      continue;
    }
    if (b === COLON || b === COMMA) {
      last = b;
      i++;
      continue;
    }
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
      i++;
      continue;
    }
    // A number or a literal: it runs until a delimiter.
    const from = i;
    while (i < n) {
      const c = raw[i]!;
      if (
        c === COMMA ||
        c === CLOSE_OBJECT ||
        c === CLOSE_ARRAY ||
        c === 0x20 ||
        c === 0x0a ||
        c === 0x0d ||
        c === 0x09
      )
        break;
      i++;
    }
    if (depth === 3 && inTickets && last === COLON) {
      if (ticketKey === KEY_RATING) {
        ratingStart[count] = from;
        ratingEnd[count] = i;
      } else if (ticketKey === KEY_CONSTRAINTS) {
        constraintsStart[count] = from;
        constraintsEnd[count] = i;
      }
    }
    last = 0;
  }
  if (depth !== 0 || count !== expectedCount) return null;
  return { count, start, end, ratingStart, ratingEnd, constraintsStart, constraintsEnd };
}
