import type { UnmatchedReason } from "@arena/contracts";
import type { MatchResult, MatchTicket } from "../matching/index.js";
import type { TicketSpans } from "./ticket-spans.js";

/**
 * A JSON number that a client reads as a float: integral values get a `.0` (`1500` → `1500.0`), as
 * the Idem API writes ratings; a Python client reads `1500` as an int but `1500.0` as a float.
 * Values from 1e21 up are already written in exponent form, which is a float.
 */
export function floatText(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? `${value}.0` : String(value);
}

/** The ticket fields written explicitly, in this order; any other field is copied after them. */
const KNOWN_FIELDS = new Set([
  "ticketId",
  "joinTimestamp",
  "rating",
  "servers",
  "partyId",
  "exactEqualityConstraints",
]);

function extraFieldsText(ticket: MatchTicket): string {
  let text = "";
  for (const key in ticket) {
    if (KNOWN_FIELDS.has(key)) continue;
    const value = JSON.stringify(ticket[key]);
    if (value !== undefined) text += `,${JSON.stringify(key)}:${value}`;
  }
  return text;
}

/**
 * One returned ticket: every field it came with, `rating` as a float, and `exactEqualityConstraints`
 * always present (`{}` when it had none). The parsed ticket is never modified: adding a property to
 * tens of thousands of parsed objects changes their hidden class and makes every later step slower.
 */
function ticketText(ticket: MatchTicket): string {
  let fields = 4;
  let text = `{"ticketId":${JSON.stringify(ticket.ticketId)},"joinTimestamp":${ticket.joinTimestamp},"rating":${floatText(ticket.rating)},"servers":${JSON.stringify(ticket.servers)}`;
  if (ticket.partyId !== undefined) {
    text += `,"partyId":${JSON.stringify(ticket.partyId)}`;
    fields++;
  }
  const constraints = ticket.exactEqualityConstraints;
  if (constraints !== undefined) fields++;
  text += `,"exactEqualityConstraints":${constraints == null ? "{}" : JSON.stringify(constraints)}`;
  // Counting keys uses V8's enumeration cache; only tickets with unknown fields pay for copying them.
  let count = 0;
  for (const _ in ticket) count++;
  if (count !== fields) text += extraFieldsText(ticket);
  return `${text}}`;
}

function ticketListText(tickets: readonly MatchTicket[]): string {
  let text = "[";
  for (let i = 0; i < tickets.length; i++) {
    if (i > 0) text += ",";
    text += ticketText(tickets[i]!);
  }
  return `${text}]`;
}

/**
 * The answer's JSON text around its tickets: matches, teams, ids, servers and scores (as floats),
 * then the unmatched tickets. `ticketList` writes one list of tickets as a JSON array; it is
 * called in answer order (every team of every match, then the unmatched tickets).
 */
function answerText(result: MatchResult, ticketList: (tickets: readonly MatchTicket[]) => string): string {
  let text = '{"matchSuggestions":[';
  const matches = result.matchSuggestions;
  for (let m = 0; m < matches.length; m++) {
    const match = matches[m]!;
    if (m > 0) text += ",";
    text += `{"id":"${match.id}","server":${JSON.stringify(match.server)},"matchScore":${floatText(match.matchScore)},"teams":[`;
    for (let t = 0; t < match.teams.length; t++) {
      const team = match.teams[t]!;
      if (t > 0) text += ",";
      text += `{"id":"${team.id}","tickets":${ticketList(team.tickets)}}`;
    }
    text += "]}";
  }
  text += `],"unmatchedTickets":${ticketList(result.unmatchedTickets)}`;
  if (result.unmatchedReasons !== undefined) text += unmatchedReasonsText(result);
  return `${text}}`;
}

/** `,"unmatchedReasons":{ticketId: reason}` in the order of the unmatched tickets. */
function unmatchedReasonsText(result: MatchResult): string {
  const reasons = result.unmatchedReasons as readonly UnmatchedReason[];
  let text = ',"unmatchedReasons":{';
  for (let i = 0; i < reasons.length; i++) {
    if (i > 0) text += ",";
    text += `${JSON.stringify(result.unmatchedTickets[i]!.ticketId)}:${JSON.stringify(reasons[i])}`;
  }
  return `${text}}`;
}

function isAsciiText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Whether the answer written from an ASCII request is ASCII too, so its latin1 bytes are its UTF-8.
 * Slices, ids and numbers are; server names and reasons come from parsed values, and a client may
 * write `"S\u00e3o Paulo"` in plain ASCII.
 */
export function answerIsAscii(result: MatchResult): boolean {
  let last = "";
  for (const match of result.matchSuggestions) {
    if (match.server === last) continue;
    if (!isAsciiText(match.server)) return false;
    last = match.server;
  }
  for (const reason of result.unmatchedReasons ?? []) {
    if (!isAsciiText(reason.detail ?? "")) return false;
  }
  return true;
}

/**
 * Writes the matchmaking answer as JSON text, in one pass over the result. Written by hand rather
 * than with JSON.stringify so ratings and scores come out as floats without touching the tickets;
 * it costs about as much as JSON.stringify of the tickets alone.
 */
export function serializeMatchResult(result: MatchResult): string {
  return answerText(result, ticketListText);
}

/** Added before a ticket's closing brace (which JSON.parse proved is its last byte) when it has none. */
const CLOSING_CONSTRAINTS_MEMBER = ',"exactEqualityConstraints":{}}';

const RATING_AS_WRITTEN = 0;
const RATING_ADD_DOT = 1;
const RATING_REWRITE = 2;

/**
 * How a rating's text becomes a float: a decimal fraction (`12.5`) stays as written, an integer
 * (`1500`) gets `.0`, and an exponent (`15e2`) is written again as `floatText` writes it, so both
 * answer paths give the same text.
 */
function ratingTextMode(text: string, start: number, end: number): number {
  let dot = false;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x65 || c === 0x45) return RATING_REWRITE; // e E
    if (c === 0x2e) dot = true;
  }
  return dot ? RATING_AS_WRITTEN : RATING_ADD_DOT;
}

/** One ticket as the client wrote it, with its rating as a float and `{}` constraints. */
function ticketFromSpans(text: string, spans: TicketSpans, t: number, ticket: MatchTicket): string {
  const start = spans.start[t]!;
  const end = spans.end[t]!;
  const ratingStart = spans.ratingStart[t]!;
  const ratingEnd = spans.ratingEnd[t]!;
  const mode = ratingStart >= 0 ? ratingTextMode(text, ratingStart, ratingEnd) : RATING_AS_WRITTEN;
  const changeRating = mode !== RATING_AS_WRITTEN;
  const cStart = spans.constraintsStart[t]!;
  const cEnd = spans.constraintsEnd[t]!;
  // `null` constraints become `{}`; missing ones are added before the closing brace.
  const nullConstraints = cStart >= 0 && cEnd - cStart === 4 && text.charCodeAt(cStart) === 0x6e;
  if (!changeRating && cStart >= 0 && !nullConstraints) return text.slice(start, end);
  // The usual ticket (no constraints, a fractional rating): one slice and the closing member.
  if (!changeRating && cStart < 0) return text.slice(start, end - 1) + CLOSING_CONSTRAINTS_MEMBER;
  let out = "";
  let at = start;
  if (nullConstraints && cStart < ratingEnd) {
    out += `${text.slice(at, cStart)}{}`;
    at = cEnd;
  }
  if (mode === RATING_ADD_DOT) {
    out += `${text.slice(at, ratingEnd)}.0`;
    at = ratingEnd;
  } else if (mode === RATING_REWRITE) {
    out += text.slice(at, ratingStart) + floatText(ticket.rating);
    at = ratingEnd;
  }
  if (nullConstraints && cStart > ratingEnd) {
    out += `${text.slice(at, cStart)}{}`;
    at = cEnd;
  }
  if (cStart < 0) return out + text.slice(at, end - 1) + CLOSING_CONSTRAINTS_MEMBER;
  return out + text.slice(at, end);
}

/**
 * The same answer as `serializeMatchResult`, assembled from the request's own text: each ticket is
 * a slice of what the client sent (see ticket-spans.ts), with `.0` after an integral rating and
 * `{}` for missing or null exactEqualityConstraints. V8 slices strings without copying and joins
 * them natively, so this costs a fraction of serializing the tickets again. `text` is the body
 * decoded as latin1, which is only valid when the body is ASCII (offsets are then bytes and
 * characters alike); `result.ticketOrder` says which request ticket comes next in the answer.
 */
export function writeMatchResultFromSpans(result: MatchResult, text: string, spans: TicketSpans): string {
  const order = result.ticketOrder;
  let next = 0;
  return answerText(result, (tickets) => {
    let out = "[";
    for (let i = 0; i < tickets.length; i++) {
      if (i > 0) out += ",";
      out += ticketFromSpans(text, spans, order[next++]!, tickets[i]!);
    }
    return `${out}]`;
  });
}
