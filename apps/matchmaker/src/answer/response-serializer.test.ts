import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import type { MatchResult, MatchTicket } from "../matching/index.js";
import { BytePool } from "./byte-pool.js";
import { floatText, serializeMatchResult, writeMatchResultFromSpans } from "./response-serializer.js";
import { scanTicketSpans } from "./ticket-spans.js";

const ascii = fc.string({
  // Multi-byte characters too: the answer copies the request's UTF-8 bytes, whatever they spell.
  unit: fc.constantFrom("a", "b", "\\", '"', "/", "-", " ", "{", "}", "[", ",", ":", "é", "€", "😀"),
  maxLength: 6,
});

const ticket = (id: number) =>
  fc.record(
    {
      ticketId: fc.constant(`t${id}`),
      joinTimestamp: fc.nat(),
      rating: fc.oneof(
        fc.integer({ min: -5000, max: 5000 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      ),
      servers: fc.oneof(
        fc.uniqueArray(ascii, { minLength: 1, maxLength: 3 }),
        fc.dictionary(ascii, fc.nat({ max: 300 }), { minKeys: 1, maxKeys: 3 }),
      ),
      partyId: ascii,
      exactEqualityConstraints: fc.oneof(
        fc.constant(null),
        fc.dictionary(ascii, fc.oneof(ascii, fc.integer(), fc.boolean()), { maxKeys: 2 }),
      ),
      extra: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ["ticketId", "joinTimestamp", "rating", "servers"] },
  );

/** Splits tickets into a match of two teams and the unmatched rest, in a shuffled order. */
function resultOf(tickets: MatchTicket[]): MatchResult {
  const [a, b, ...rest] = [...tickets].reverse();
  const n = tickets.length;
  if (!a || !b)
    return { matchSuggestions: [], unmatchedTickets: tickets, ticketOrder: Int32Array.from(tickets.keys()) };
  return {
    ticketOrder: Int32Array.from([n - 1, n - 2, ...Array.from({ length: n - 2 }, (_, i) => n - 3 - i)]),
    matchSuggestions: [
      {
        id: "00000000-0000-4000-8000-000000000001",
        server: 'eu-\u00e9"1',
        matchScore: 1,
        teams: [
          { id: "00000000-0000-4000-8000-000000000002", tickets: [a] },
          { id: "00000000-0000-4000-8000-000000000003", tickets: [b] },
        ],
      },
    ],
    unmatchedTickets: rest,
  };
}

function fromSpans(body: string, tickets: MatchTicket[], result: MatchResult): string | null {
  const raw = Buffer.from(body, "utf8");
  const spans = scanTicketSpans(raw, tickets.length);
  if (!spans) return null;
  return writeMatchResultFromSpans(result, raw, spans, new BytePool(undefined, 0)).bytes.toString("utf8");
}

describe("the answer assembled from the request's text", () => {
  it("is the same JSON as serializing the parsed tickets, whatever the tickets hold", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 6 })
          .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => ticket(i)))),
        fc.boolean(),
        (generated, pretty) => {
          const body = JSON.stringify(
            { game_mode: { numTeams: 2, numPlayersPerTeam: 1 }, tickets: generated },
            null,
            pretty ? 2 : 0,
          );
          const tickets = (JSON.parse(body) as { tickets: MatchTicket[] }).tickets;
          const result = resultOf(tickets);
          const fast = fromSpans(body, tickets, result);
          expect(fast).not.toBeNull();
          expect(JSON.parse(fast!)).toEqual(JSON.parse(serializeMatchResult(result)));
          // Ratings are floats in the text, and every ticket has its constraints.
          for (const match of fast!.matchAll(/"rating":\s*(-?[0-9.eE+-]+)/g))
            expect(match[1]).toMatch(/[.eE]/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps the last of repeated root keys, as JSON.parse does", () => {
    const body =
      '{"tickets":[{"ticketId":"x","joinTimestamp":1,"rating":1,"servers":["a"]}],"tickets":[{"ticketId":"y","rating":3,"joinTimestamp":1,"servers":["a"]}]}';
    const tickets = (JSON.parse(body) as { tickets: MatchTicket[] }).tickets;
    const fast = fromSpans(body, tickets, resultOf(tickets));
    expect(JSON.parse(fast!).unmatchedTickets).toEqual([
      { ...tickets[0], rating: 3, exactEqualityConstraints: {} },
    ]);
  });

  it("steps aside for a ticket that repeats a key, so the answer shows the value that was matched", () => {
    for (const body of [
      '{"tickets":[{"ticketId":"y","rating":2,"rating":3,"joinTimestamp":1,"servers":["a"]}]}',
      '{"tickets":[{"ticketId":"a","ticketId":"b","joinTimestamp":1,"rating":3,"servers":["a"]}]}',
      '{"tickets":[{"ticketId":"y","joinTimestamp":1,"rating":3,"servers":["a"],"servers":["b"]}]}',
    ]) {
      expect(scanTicketSpans(Buffer.from(body), 1)).toBeNull();
    }
    // Keys of nested objects are not the ticket's own and may repeat across levels.
    const nested =
      '{"tickets":[{"ticketId":"y","joinTimestamp":1,"rating":3,"servers":["a"],"x":{"ticketId":1}}]}';
    expect(scanTicketSpans(Buffer.from(nested), 1)).not.toBeNull();
  });

  it("reads an escaped root key and steps aside for escaped ticket keys (they could spell a repeated key)", () => {
    const root = '{"t\\u0069ckets":[{"ticketId":"x","joinTimestamp":1,"rating":7,"servers":["a"]}]}';
    const tickets = (JSON.parse(root) as { tickets: MatchTicket[] }).tickets;
    const fast = fromSpans(root, tickets, resultOf(tickets))!;
    expect(fast).toContain('"rating":7.0');
    const ticketKey =
      '{"tickets":[{"ticketId":"x","joinTimestamp":1,"r\\u0061ting":7,"rating":8,"servers":["a"]}]}';
    expect(scanTicketSpans(Buffer.from(ticketKey), 1)).toBeNull();
  });

  it("writes a rating given with an exponent as the parsed-ticket writer does", () => {
    const body =
      '{"tickets":[{"ticketId":"x","joinTimestamp":1,"rating":15e2,"servers":["a"]},{"ticketId":"y","joinTimestamp":1,"rating":-2.5E-1,"servers":["a"]}]}';
    const tickets = (JSON.parse(body) as { tickets: MatchTicket[] }).tickets;
    const result = resultOf(tickets);
    const fast = fromSpans(body, tickets, result)!;
    expect(fast).toContain('"rating":1500.0');
    expect(fast).toContain('"rating":-0.25');
    expect(fast).toBe(serializeMatchResult(result));
  });

  it("gives up on a body whose ticket count differs from the parsed one", () => {
    const raw = Buffer.from('{"tickets":[{"ticketId":"x","rating":1}]}');
    expect(scanTicketSpans(raw, 2)).toBeNull();
  });
});

describe("floatText", () => {
  it("writes integral numbers with .0 and leaves the rest as JavaScript writes them", () => {
    expect(floatText(1500)).toBe("1500.0");
    expect(floatText(-3)).toBe("-3.0");
    expect(floatText(12.5)).toBe("12.5");
    expect(floatText(1e21)).toBe("1e+21");
    expect(floatText(0)).toBe("0.0");
  });
});
