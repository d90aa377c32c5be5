import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { findMatches } from "./find-matches.js";
import { DEFAULT_TARGET_WAITING_TIME, requiredScore } from "./match-quality.js";
import { constraintKey } from "./queue-model.js";
import { SearchScratch } from "./search-scratch.js";
import type { MatchGameMode, MatchResult, MatchTicket } from "./types.js";

const NOW = 1_700_000_000;
const MODES: Array<[teams: number, perTeam: number]> = [
  [2, 1],
  [2, 2],
  [2, 5],
  [3, 3],
  [4, 1],
  [16, 1],
  [1, 8],
  [2, 8],
];
const SERVERS = ["eu-west", "eu-east", "us-east", "asia"];
const CONSTRAINTS: Array<MatchTicket["exactEqualityConstraints"]> = [
  undefined,
  null,
  {},
  { map: "dust" },
  { map: "dust", ranked: true },
  { ranked: true, map: "dust" },
];
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Queue {
  gameMode: MatchGameMode;
  tickets: MatchTicket[];
  edition: "basic" | "advanced";
}

const queueArbitrary = (options: { advanced: boolean }): fc.Arbitrary<Queue> =>
  fc
    .record({
      mode: fc.constantFrom(...MODES),
      maxLatency: options.advanced
        ? fc.option(fc.integer({ min: 20, max: 150 }), { nil: undefined })
        : fc.constant(undefined),
      maxWaitingTime: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
      ratingTolerance: fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
      tickets: fc.array(
        fc.record({
          rating: fc.oneof(
            fc.constantFrom(1000, 1500, 2000),
            fc.double({ min: -500, max: 3500, noNaN: true }),
          ),
          wait: fc.integer({ min: 0, max: 40 }),
          servers: fc.subarray(SERVERS, { minLength: 1 }),
          latencies: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 4, maxLength: 4 }),
          useMap: fc.boolean(),
          party: fc.oneof(
            { arbitrary: fc.constant(undefined), weight: 3 },
            { arbitrary: fc.integer({ min: 0, max: 15 }), weight: 1 },
          ),
          constraints: fc.oneof(
            { arbitrary: fc.constant(0), weight: 3 },
            { arbitrary: fc.integer({ min: 0, max: CONSTRAINTS.length - 1 }), weight: 1 },
          ),
        }),
        { maxLength: 70 },
      ),
    })
    .map(({ mode, maxLatency, maxWaitingTime, ratingTolerance, tickets }) => ({
      edition: options.advanced ? "advanced" : "basic",
      gameMode: {
        numTeams: mode[0],
        numPlayersPerTeam: mode[1],
        maxLatency,
        maxWaitingTime,
        ratingTolerance,
      },
      tickets: tickets.map((t, i) => {
        const ticket: MatchTicket = {
          ticketId: `ticket-${i}`,
          joinTimestamp: NOW - t.wait,
          rating: t.rating,
          servers:
            options.advanced && t.useMap
              ? Object.fromEntries(t.servers.map((s, k) => [s, t.latencies[k]!]))
              : t.servers,
        };
        if (t.party !== undefined) ticket.partyId = `party-${t.party}`;
        const constraints = CONSTRAINTS[t.constraints];
        if (constraints !== undefined) ticket.exactEqualityConstraints = constraints;
        return ticket;
      }),
    }));

function serversOf(ticket: MatchTicket, maxLatency: number | undefined): string[] {
  if (Array.isArray(ticket.servers)) return [...ticket.servers];
  return Object.entries(ticket.servers as Record<string, number>)
    .filter(([, latency]) => maxLatency === undefined || latency <= maxLatency)
    .map(([name]) => name);
}

/** Rules 1-4 and 6 plus parties and constraints, checked on any result. */
function checkRules(queue: Queue, result: MatchResult): void {
  const { gameMode, tickets } = queue;
  const seen = new Map<MatchTicket, number>();
  const count = (t: MatchTicket) => seen.set(t, (seen.get(t) ?? 0) + 1);
  const matchOf = new Map<MatchTicket, { match: number; team: number }>();
  result.matchSuggestions.forEach((match, m) => {
    expect(match.teams).toHaveLength(gameMode.numTeams);
    expect(match.matchScore).toBeGreaterThanOrEqual(0);
    expect(match.matchScore).toBeLessThanOrEqual(1);
    const members = match.teams.flatMap((team) => team.tickets);
    match.teams.forEach((team, t) => {
      expect(team.tickets).toHaveLength(gameMode.numPlayersPerTeam);
      for (const ticket of team.tickets) {
        count(ticket);
        matchOf.set(ticket, { match: m, team: t });
      }
    });
    for (const ticket of members) {
      expect(serversOf(ticket, gameMode.maxLatency)).toContain(match.server);
      expect(constraintKey(ticket.exactEqualityConstraints)).toBe(
        constraintKey(members[0]!.exactEqualityConstraints),
      );
    }
    const oldestWait = Math.max(...members.map((t) => NOW - t.joinTimestamp));
    const expired = gameMode.maxWaitingTime !== undefined && oldestWait >= gameMode.maxWaitingTime;
    expect(match.matchScore).toBeGreaterThanOrEqual(
      requiredScore(oldestWait, DEFAULT_TARGET_WAITING_TIME, expired),
    );
  });
  for (const ticket of result.unmatchedTickets) count(ticket);
  expect(seen.size).toBe(tickets.length);
  for (const ticket of tickets) expect(seen.get(ticket)).toBe(1);

  const parties = new Map<string, MatchTicket[]>();
  for (const ticket of tickets) {
    if (ticket.partyId !== undefined)
      parties.set(ticket.partyId, [...(parties.get(ticket.partyId) ?? []), ticket]);
  }
  for (const members of parties.values()) {
    const places = members.map((t) => matchOf.get(t));
    if (places[0] === undefined) {
      expect(places.every((p) => p === undefined)).toBe(true);
    } else {
      expect(places.every((p) => p?.match === places[0]?.match && p?.team === places[0]?.team)).toBe(true);
    }
  }
}

function withoutIds(result: MatchResult): unknown {
  return {
    unmatched: result.unmatchedTickets.map((t) => t.ticketId),
    matches: result.matchSuggestions.map((m) => ({
      server: m.server,
      matchScore: m.matchScore,
      teams: m.teams.map((team) => team.tickets.map((t) => t.ticketId)),
    })),
  };
}

describe("findMatches on random queues", () => {
  it("places every ticket exactly once in full teams on a shared server (basic)", () => {
    let matches = 0;
    fc.assert(
      fc.property(queueArbitrary({ advanced: false }), (queue) => {
        const result = findMatches(queue.gameMode, queue.tickets, { now: NOW });
        checkRules(queue, result);
        matches += result.matchSuggestions.length;
      }),
      { numRuns: 300 },
    );
    expect(matches).toBeGreaterThan(30);
  });

  it("keeps latency maps within maxLatency and parties and constraints together (advanced)", () => {
    let partyMatches = 0;
    fc.assert(
      fc.property(queueArbitrary({ advanced: true }), (queue) => {
        const result = findMatches(queue.gameMode, queue.tickets, { now: NOW });
        checkRules(queue, result);
        for (const match of result.matchSuggestions) {
          if (match.teams.some((team) => team.tickets.some((t) => t.partyId !== undefined))) partyMatches++;
        }
      }),
      { numRuns: 300 },
    );
    expect(partyMatches).toBeGreaterThan(10);
  });

  it("gives the same matches for the same request, and the same ids for the same seed", () => {
    fc.assert(
      fc.property(queueArbitrary({ advanced: true }), fc.string(), (queue, seed) => {
        const options = { now: NOW, idSeed: seed };
        const first = findMatches(queue.gameMode, queue.tickets, options);
        const second = findMatches(queue.gameMode, structuredClone(queue.tickets), options);
        expect(withoutIds(second)).toEqual(withoutIds(first));
        expect(second.matchSuggestions.map((m) => [m.id, m.teams.map((t) => t.id)])).toEqual(
          first.matchSuggestions.map((m) => [m.id, m.teams.map((t) => t.id)]),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("gives the same result with a scratch reused across queues as with a fresh one", () => {
    // One scratch serves queues of every size and mode in turn, as in the HTTP shell: arrays sized
    // for a larger queue or match are reused for a smaller one.
    const shared = new SearchScratch();
    fc.assert(
      fc.property(fc.array(queueArbitrary({ advanced: true }), { minLength: 1, maxLength: 6 }), (queues) => {
        for (const queue of queues) {
          const options = { now: NOW, idSeed: "seed", explain: true };
          const reused = findMatches(queue.gameMode, queue.tickets, { ...options, scratch: shared });
          const fresh = findMatches(queue.gameMode, queue.tickets, options);
          expect(reused).toEqual(fresh);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("issues distinct version-4 uuids for every match and team", () => {
    fc.assert(
      fc.property(queueArbitrary({ advanced: false }), (queue) => {
        const result = findMatches(queue.gameMode, queue.tickets, { now: NOW, idSeed: "s" });
        const ids = result.matchSuggestions.flatMap((m) => [m.id, ...m.teams.map((t) => t.id)]);
        for (const id of ids) expect(id).toMatch(UUID_V4);
        expect(new Set(ids).size).toBe(ids.length);
      }),
      { numRuns: 150 },
    );
  });

  it("leaves fewer than one match's worth unmatched when every ticket waited long and fits anywhere", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODES),
        fc.array(fc.double({ min: 0, max: 3000, noNaN: true }), { maxLength: 120 }),
        ([numTeams, numPlayersPerTeam], ratings) => {
          const tickets = ratings.map((rating, i) => ({
            ticketId: `t${i}`,
            joinTimestamp: NOW - 25,
            rating,
            servers: ["eu-west"],
          }));
          const result = findMatches({ numTeams, numPlayersPerTeam }, tickets, {
            now: NOW,
          });
          expect(result.unmatchedTickets.length).toBe(tickets.length % (numTeams * numPlayersPerTeam));
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** Tickets that are well-formed but can never be placed, with the reason each must be given. */
function unplaceableTickets(queue: Queue, seed: number): Array<{ ticket: MatchTicket; code: string }> {
  const perTeam = queue.gameMode.numPlayersPerTeam;
  const out: Array<{ ticket: MatchTicket; code: string }> = [];
  const base = { joinTimestamp: NOW - 60, rating: 1500 + seed };
  for (let i = 0; i <= perTeam; i++) {
    out.push({
      ticket: { ...base, ticketId: `big-${i}`, partyId: "unplaceable-big", servers: ["eu-west"] },
      code: "party-too-large",
    });
  }
  if (perTeam >= 2) {
    out.push(
      {
        ticket: { ...base, ticketId: "apart-0", partyId: "unplaceable-apart", servers: ["eu-west"] },
        code: "no-shared-server",
      },
      {
        ticket: { ...base, ticketId: "apart-1", partyId: "unplaceable-apart", servers: ["asia"] },
        code: "no-shared-server",
      },
      {
        ticket: {
          ...base,
          ticketId: "mixed-0",
          partyId: "unplaceable-mixed",
          servers: ["eu-west"],
          exactEqualityConstraints: { map: "a" },
        },
        code: "party-constraints-differ",
      },
      {
        ticket: {
          ...base,
          ticketId: "mixed-1",
          partyId: "unplaceable-mixed",
          servers: ["eu-west"],
          exactEqualityConstraints: { map: "b" },
        },
        code: "party-constraints-differ",
      },
    );
  }
  if (queue.edition === "advanced" && queue.gameMode.maxLatency !== undefined) {
    const tooFar = queue.gameMode.maxLatency + 1;
    out.push({
      ticket: { ...base, ticketId: "far-0", servers: { "eu-west": tooFar, asia: tooFar + 50 } },
      code: "no-server-within-max-latency",
    });
  }
  return out;
}

describe("findMatches with tickets that can never be placed", () => {
  it("returns them unmatched with their reason and matches the rest of the queue as without them", () => {
    fc.assert(
      fc.property(queueArbitrary({ advanced: true }), fc.nat(300), (generated, seed) => {
        // A fixed tolerance: the default one is derived from every rating in the request.
        const gameMode = { ...generated.gameMode, ratingTolerance: 200 };
        const queue = { ...generated, gameMode };
        const extra = unplaceableTickets(queue, seed);
        const all = { ...queue, tickets: [...queue.tickets, ...extra.map((e) => e.ticket)] };
        const options = { now: NOW, idSeed: "s" };
        const result = findMatches(gameMode, all.tickets, { ...options, explain: true });
        checkRules(all, result);

        const reasons = new Map(
          result.unmatchedTickets.map((t, i) => [t.ticketId, result.unmatchedReasons![i]!]),
        );
        expect(reasons.size).toBe(result.unmatchedTickets.length);
        for (const { ticket, code } of extra) expect(reasons.get(ticket.ticketId)?.code).toBe(code);
        for (const reason of reasons.values()) {
          if (reason.code === "waiting-for-better-match") {
            expect(reason.requiredScore).toBeGreaterThan(0);
            expect(reason.bestScore).toBeGreaterThanOrEqual(0);
          }
        }

        const alone = findMatches(gameMode, queue.tickets, options);
        expect(withoutIds(result)).toEqual({
          ...(withoutIds(alone) as object),
          unmatched: result.unmatchedTickets.map((t) => t.ticketId),
        });
        const extraIds = new Set(extra.map((e) => e.ticket.ticketId));
        expect(
          result.unmatchedTickets.filter((t) => !extraIds.has(t.ticketId)).map((t) => t.ticketId),
        ).toEqual(alone.unmatchedTickets.map((t) => t.ticketId));
      }),
      { numRuns: 300 },
    );
  });

  it("explains without changing the matches, and says nothing unless asked", () => {
    fc.assert(
      fc.property(queueArbitrary({ advanced: false }), (queue) => {
        const options = { now: NOW, idSeed: "s" };
        const plain = findMatches(queue.gameMode, queue.tickets, options);
        const explained = findMatches(queue.gameMode, queue.tickets, { ...options, explain: true });
        expect(plain.unmatchedReasons).toBeUndefined();
        expect(withoutIds(explained)).toEqual(withoutIds(plain));
        expect(explained.unmatchedReasons).toHaveLength(explained.unmatchedTickets.length);
      }),
      { numRuns: 150 },
    );
  });
});
