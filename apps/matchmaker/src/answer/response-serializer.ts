import { Buffer } from "node:buffer";
import type { UnmatchedReason } from "@arena/contracts";
import type { MatchResult, MatchTicket } from "../matching/index.js";
import { AnswerBytes } from "./answer-bytes.js";
import type { BytePool } from "./byte-pool.js";
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

/** A fixed piece of the answer's JSON, as text for the string writer and as bytes for the byte writer. */
interface Piece {
  text: string;
  bytes: Uint8Array;
}

const piece = (text: string): Piece => ({ text, bytes: Buffer.from(text, "latin1") });

const ANSWER_START = piece('{"matchSuggestions":[');
const FIRST_MATCH = piece('{"id":"');
const NEXT_MATCH = piece(',{"id":"');
const SERVER = piece('","server":');
const SCORE = piece(',"matchScore":');
const TEAMS = piece(',"teams":[');
const TEAM_TICKETS = piece('","tickets":');
const TEAM_END = piece("}");
const MATCH_END = piece("]}");
const UNMATCHED = piece('],"unmatchedTickets":');
const ANSWER_END = piece("}");

/**
 * Where the answer is written: the parsed-ticket writer builds a string, the span writer bytes.
 * `tickets` writes one list of tickets as a JSON array; it is called in answer order (every team of
 * every match, then the unmatched tickets). `id` takes a match or team id, which is ASCII by
 * construction (`match-ids.ts`).
 */
interface AnswerSink {
  text(value: string): void;
  piece(value: Piece): void;
  id(value: string): void;
  tickets(list: readonly MatchTicket[]): void;
}

/** The answer's JSON around its tickets: matches, teams, ids, servers and scores (as floats), then the unmatched tickets. */
function writeAnswer(result: MatchResult, out: AnswerSink): void {
  out.piece(ANSWER_START);
  const matches = result.matchSuggestions;
  let server = "";
  let serverJson = "";
  for (let m = 0; m < matches.length; m++) {
    const match = matches[m]!;
    // Matches share a handful of servers: each name is escaped once per run of equal names.
    if (m === 0 || match.server !== server) {
      server = match.server;
      serverJson = JSON.stringify(server);
    }
    // Piece by piece, never concatenated first: the byte writer copies each piece as it is.
    out.piece(m > 0 ? NEXT_MATCH : FIRST_MATCH);
    out.id(match.id);
    out.piece(SERVER);
    out.text(serverJson);
    out.piece(SCORE);
    out.text(floatText(match.matchScore));
    out.piece(TEAMS);
    for (let t = 0; t < match.teams.length; t++) {
      const team = match.teams[t]!;
      out.piece(t > 0 ? NEXT_MATCH : FIRST_MATCH);
      out.id(team.id);
      out.piece(TEAM_TICKETS);
      out.tickets(team.tickets);
      out.piece(TEAM_END);
    }
    out.piece(MATCH_END);
  }
  out.piece(UNMATCHED);
  out.tickets(result.unmatchedTickets);
  if (result.unmatchedReasons !== undefined) out.text(unmatchedReasonsText(result));
  out.piece(ANSWER_END);
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

class StringAnswer implements AnswerSink {
  value = "";

  text(value: string): void {
    this.value += value;
  }

  piece(value: Piece): void {
    this.value += value.text;
  }

  id(value: string): void {
    this.value += value;
  }

  tickets(list: readonly MatchTicket[]): void {
    let text = "[";
    for (let i = 0; i < list.length; i++) {
      if (i > 0) text += ",";
      text += ticketText(list[i]!);
    }
    this.value += `${text}]`;
  }
}

/**
 * Writes the matchmaking answer as JSON text from the parsed tickets, in one pass over the result.
 * Written by hand rather than with JSON.stringify so ratings and scores come out as floats without
 * touching the tickets. Used when the request's own bytes cannot be reused (see `writeMatchResultFromSpans`).
 */
export function serializeMatchResult(result: MatchResult): string {
  const out = new StringAnswer();
  writeAnswer(result, out);
  return out.value;
}

/** Added before a ticket's closing brace (which JSON.parse proved is its last byte) when it has none. */
const CLOSING_CONSTRAINTS_MEMBER = Buffer.from(',"exactEqualityConstraints":{}}', "latin1");
const EMPTY_OBJECT = Buffer.from("{}", "latin1");
const POINT_ZERO = Buffer.from(".0", "latin1");

const RATING_AS_WRITTEN = 0;
const RATING_ADD_DOT = 1;
const RATING_REWRITE = 2;

/**
 * How a rating's text becomes a float: a decimal fraction (`12.5`) stays as written, an integer
 * (`1500`) gets `.0`, and an exponent (`15e2`) is written again as `floatText` writes it, so both
 * answer paths give the same text.
 */
function ratingTextMode(raw: Uint8Array, start: number, end: number): number {
  let dot = false;
  for (let k = start; k < end; k++) {
    const c = raw[k]!;
    if (c === 0x65 || c === 0x45) return RATING_REWRITE; // e E
    if (c === 0x2e) dot = true;
  }
  return dot ? RATING_AS_WRITTEN : RATING_ADD_DOT;
}

/** The answer in bytes, each ticket copied from the request as the client wrote it. */
class SpanAnswer implements AnswerSink {
  private next = 0;

  constructor(
    private readonly raw: Buffer,
    private readonly spans: TicketSpans,
    private readonly order: Int32Array,
    readonly out: AnswerBytes,
  ) {}

  text(value: string): void {
    this.out.text(value);
  }

  piece(value: Piece): void {
    this.out.constant(value.bytes);
  }

  id(value: string): void {
    this.out.ascii(value);
  }

  tickets(list: readonly MatchTicket[]): void {
    const out = this.out;
    for (let i = 0; i < list.length; i++) {
      out.byte(i === 0 ? 0x5b : 0x2c); // [ ,
      this.ticket(this.order[this.next++]!, list, i);
    }
    if (list.length === 0) out.byte(0x5b);
    out.byte(0x5d); // ]
  }

  /**
   * One ticket as the client wrote it, with its rating as a float and `{}` constraints. The parsed
   * ticket (`list[i]`) is read only for a rating written with an exponent: at 100k tickets, reading
   * every one is a cache miss per ticket.
   */
  private ticket(t: number, list: readonly MatchTicket[], i: number): void {
    const { raw, spans, out } = this;
    const start = spans.start[t]!;
    const end = spans.end[t]!;
    const ratingStart = spans.ratingStart[t]!;
    const ratingEnd = spans.ratingEnd[t]!;
    const mode = ratingStart >= 0 ? ratingTextMode(raw, ratingStart, ratingEnd) : RATING_AS_WRITTEN;
    const cStart = spans.constraintsStart[t]!;
    const cEnd = spans.constraintsEnd[t]!;
    // `null` constraints become `{}`; missing ones are added before the closing brace.
    const nullConstraints = cStart >= 0 && cEnd - cStart === 4 && raw[cStart] === 0x6e;
    let at = start;
    if (mode !== RATING_AS_WRITTEN || nullConstraints) {
      if (nullConstraints && cStart < ratingEnd) {
        out.copy(raw, at, cStart);
        out.constant(EMPTY_OBJECT);
        at = cEnd;
      }
      if (mode === RATING_ADD_DOT) {
        out.copy(raw, at, ratingEnd);
        out.constant(POINT_ZERO);
        at = ratingEnd;
      } else if (mode === RATING_REWRITE) {
        out.copy(raw, at, ratingStart);
        out.text(floatText(list[i]!.rating));
        at = ratingEnd;
      }
      if (nullConstraints && cStart > ratingEnd) {
        out.copy(raw, at, cStart);
        out.constant(EMPTY_OBJECT);
        at = cEnd;
      }
    }
    if (cStart >= 0) {
      out.copy(raw, at, end);
    } else {
      out.copy(raw, at, end - 1);
      out.constant(CLOSING_CONSTRAINTS_MEMBER);
    }
  }
}

/**
 * The same answer as `serializeMatchResult`, as UTF-8 bytes assembled from the request's own: each
 * ticket is a copy of the bytes the client sent (see ticket-spans.ts), with `.0` after an integral
 * rating and `{}` for missing or null exactEqualityConstraints, written straight into the answer's
 * buffer. This costs a fraction of serializing the tickets again. `raw` is the request body as
 * received (UTF-8); `result.ticketOrder` says which request ticket comes next in the answer.
 */
export function writeMatchResultFromSpans(
  result: MatchResult,
  raw: Buffer,
  spans: TicketSpans,
  pool: BytePool,
): AnswerBytes {
  // The tickets' bytes, the constraints most of them gain, and room for the matches around them.
  const teams = result.matchSuggestions[0]?.teams.length ?? 0;
  const capacity = raw.length + 40 * spans.count + result.matchSuggestions.length * (160 + 64 * teams);
  const answer = new SpanAnswer(raw, spans, result.ticketOrder, new AnswerBytes(capacity, pool));
  writeAnswer(result, answer);
  return answer.out;
}
