import type { MatchResult } from "../matching/index.js";
import type { BytePool } from "./byte-pool.js";
import type { RawJsonBody } from "./raw-json-body.js";
import { serializeMatchResult, writeMatchResultFromSpans } from "./response-serializer.js";
import type { SpanScanner } from "./span-scanner.js";
import type { TicketSpans } from "./ticket-spans.js";

export interface WrittenAnswer {
  body: string | Buffer;
  /** Call once the response is sent: `body`'s buffer may then be reused by another answer. */
  release: () => void;
}

/**
 * The answer of one request, started as soon as the body is parsed: the ticket spans are looked for
 * (on the scanner's worker thread) while the request thread validates and matches; `write` then
 * assembles the answer's bytes from copies of the request's own, or serializes the parsed tickets
 * when there are no spans (a ticket the scanner steps aside for, a failed scan). Both give the same JSON.
 */
export class PendingAnswer {
  private readonly spans: Promise<TicketSpans | null> | null;

  constructor(
    private readonly raw: RawJsonBody | undefined,
    body: unknown,
    scanner: SpanScanner,
  ) {
    const tickets = (body as { tickets?: unknown } | null)?.tickets;
    this.spans =
      raw === undefined || !Array.isArray(tickets)
        ? null
        : scanner.scan(raw.bytes, tickets.length).catch(() => null);
  }

  /**
   * The answer's text or bytes; bytes are written into a buffer of `pool`'s, and `release` gives it
   * back once the response has been sent (never before: the socket may still be reading it).
   */
  async write(result: MatchResult, pool: BytePool): Promise<WrittenAnswer> {
    const spans = this.spans ? await this.spans : null;
    if (this.raw === undefined || !spans) return { body: serializeMatchResult(result), release: () => {} };
    const answer = writeMatchResultFromSpans(result, this.raw.bytes, spans, pool);
    return { body: answer.bytes, release: () => answer.release() };
  }
}
