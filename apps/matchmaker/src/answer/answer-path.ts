import type { MatchResult } from "../matching/index.js";
import type { RawJsonBody } from "./raw-json-body.js";
import { answerIsAscii, serializeMatchResult, writeMatchResultFromSpans } from "./response-serializer.js";
import type { SpanScanner } from "./span-scanner.js";
import type { TicketSpans } from "./ticket-spans.js";

/**
 * The answer of one request, started as soon as the body is parsed: for an ASCII body the ticket
 * spans are looked for (on the scanner's worker thread) while the request thread validates and
 * matches; `write` then assembles the answer from slices of the request's own text, or serializes
 * the parsed tickets when there are no spans (non-ASCII body, a ticket the scanner steps aside for,
 * a failed scan). Both give the same JSON.
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
      raw?.asciiText === undefined || !Array.isArray(tickets)
        ? null
        : scanner.scan(raw.bytes, tickets.length).catch(() => null);
  }

  async write(result: MatchResult): Promise<string | Buffer> {
    const text = this.raw?.asciiText;
    const spans = this.spans ? await this.spans : null;
    if (text === undefined || !spans) return serializeMatchResult(result);
    const answer = writeMatchResultFromSpans(result, text, spans);
    // An ASCII answer (slices of an ASCII request, uuids, numbers, ASCII server names) is its own
    // UTF-8 in latin1, and converting it is a plain copy without a UTF-8 pass.
    return answerIsAscii(result) ? Buffer.from(answer, "latin1") : answer;
  }
}
