import { describe, expect, it } from "@jest/globals";
import { findMatches, type MatchOptions } from "./find-matches.js";
import { IMBALANCE_WEIGHT, spreadWeight } from "./match-quality.js";
import type { MatchGameMode, MatchTicket } from "./types.js";

const NOW = 1_700_000_000;
const BASIC: MatchOptions = { now: NOW, idSeed: "test" };
const ADVANCED: MatchOptions = { now: NOW, idSeed: "test" };
const DUEL: MatchGameMode = { numTeams: 2, numPlayersPerTeam: 1 };
const DOUBLES: MatchGameMode = { numTeams: 2, numPlayersPerTeam: 2 };
/** The search settings of DOUBLES (what `spreadWeight` reads: the shape and the tolerance). */
const SETTINGS_2V2 = {
  teams: 2,
  perTeam: 2,
  now: 0,
  targetWaitingTime: 20,
  maxWaitingTime: Infinity,
  tolerance: 1,
};

let nextId = 0;
function ticket(
  rating: number,
  wait: number,
  servers: MatchTicket["servers"] = ["eu"],
  extra = {},
): MatchTicket {
  return { ticketId: `t${nextId++}`, joinTimestamp: NOW - wait, rating, servers, ...extra };
}

const teamIds = (result: ReturnType<typeof findMatches>) =>
  result.matchSuggestions.map((m) => m.teams.map((team) => team.tickets.map((t) => t.ticketId)));

describe("findMatches", () => {
  it("returns 13 tickets as 3 matches and 1 unmatched for 2x2", () => {
    const tickets = Array.from({ length: 13 }, (_, i) => ticket(1000 + 25 * i, 30));
    const result = findMatches(DOUBLES, tickets, BASIC);
    expect(result.matchSuggestions).toHaveLength(3);
    expect(result.unmatchedTickets).toHaveLength(1);
  });

  it("returns the very ticket objects it was given", () => {
    const tickets = [ticket(1500, 0), ticket(1500, 0), ticket(1200, 0)];
    const result = findMatches(DUEL, tickets, BASIC);
    const returned = [
      ...result.matchSuggestions.flatMap((m) => m.teams.flatMap((t) => t.tickets)),
      ...result.unmatchedTickets,
    ];
    expect(returned.sort((a, b) => a.ticketId.localeCompare(b.ticketId))).toEqual(tickets);
    for (const t of returned) expect(tickets).toContain(t);
  });

  it("matches fresh tickets with identical ratings at once with a score of 1", () => {
    const result = findMatches(
      DOUBLES,
      [ticket(1500, 0), ticket(1500, 0), ticket(1500, 0), ticket(1500, 0)],
      BASIC,
    );
    expect(result.matchSuggestions).toHaveLength(1);
    expect(result.matchSuggestions[0]!.matchScore).toBe(1);
  });

  it("holds back two fresh tickets far apart in rating", () => {
    const result = findMatches(DUEL, [ticket(1000, 0), ticket(2000, 1)], BASIC);
    expect(result.matchSuggestions).toHaveLength(0);
    expect(result.unmatchedTickets).toHaveLength(2);
  });

  it("matches the same far-apart pair once the older ticket waited past targetWaitingTime", () => {
    const result = findMatches(DUEL, [ticket(1000, 20), ticket(2000, 0)], BASIC);
    expect(result.matchSuggestions).toHaveLength(1);
    expect(result.matchSuggestions[0]!.matchScore).toBeLessThan(0.5);
  });

  it("honours a custom targetWaitingTime", () => {
    const pair = () => [ticket(1000, 6), ticket(2000, 0)];
    expect(findMatches({ ...DUEL, targetWaitingTime: 5 }, pair(), BASIC).matchSuggestions).toHaveLength(1);
    expect(findMatches({ ...DUEL, targetWaitingTime: 60 }, pair(), BASIC).matchSuggestions).toHaveLength(0);
  });

  it("relaxes the required quality gradually as the oldest ticket waits", () => {
    const mode = { ...DUEL, ratingTolerance: 100 };
    const firstMatchingWait = (gap: number) => {
      for (let wait = 0; wait <= 20; wait++) {
        if (
          findMatches(mode, [ticket(1500, wait), ticket(1500 + gap, 0)], BASIC).matchSuggestions.length > 0
        ) {
          return wait;
        }
      }
      return Number.POSITIVE_INFINITY;
    };
    const waits = [30, 60, 80, 110, 2000].map(firstMatchingWait);
    expect(waits[0]).toBe(0);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
    expect(waits[waits.length - 1]).toBeLessThanOrEqual(20);
  });

  it("matches fresh tickets whose ratings are close relative to the queue's spread", () => {
    const tickets = [ticket(1000, 0), ticket(1490, 0), ticket(1500, 0), ticket(2000, 0)];
    const result = findMatches(DUEL, tickets, BASIC);
    expect(teamIds(result)).toEqual([[[tickets[1]!.ticketId], [tickets[2]!.ticketId]]]);
  });

  it("gives a ticket past maxWaitingTime the best match available to it first", () => {
    const old = ticket(1000, 12);
    const neighbour = ticket(1100, 0);
    const twin = ticket(1100, 0);
    const result = findMatches({ ...DUEL, maxWaitingTime: 10 }, [neighbour, twin, old], BASIC);
    expect(result.matchSuggestions).toHaveLength(1);
    expect(teamIds(result)[0]!.flat()).toContain(old.ticketId);
  });

  it("before the target wait, a 2v2 anchor far from its group's median weighs its spread less and takes a wide, exactly balanced match", () => {
    // The group's units sorted: 1200 1400 1500 1600 | 1800 1900 1900 2300, median 1700. The anchor
    // (2300, 12 s) sits two tolerances above it: its spread weighs 1 / (1 + 2 · 1.4). 2300 + 1500
    // against 1900 + 1900 is exact at a spread of 800; unweighted it would score 0.12, far below the
    // requirement at 12 s of 20. The players on "us" are a wide spread around the median and fresh,
    // so they stay.
    for (const withParty of [false, true]) {
      const anchor = ticket(2300, 12);
      const partners = [ticket(1500, 0), ticket(1900, 0), ticket(1900, 0)];
      const centre = [1200, 1400, 1600, 1800].map((r) => ticket(r, 0, ["us"]));
      // A party in a constraint group of its own sends the request through the general search
      // without moving this group's median.
      const party = withParty
        ? [0, 1].map(() => ticket(500, 0, ["eu"], { partyId: "p", exactEqualityConstraints: { league: 2 } }))
        : [];
      const mode = { ...DOUBLES, ratingTolerance: 300 };
      const result = findMatches(mode, [anchor, ...partners, ...centre, ...party], BASIC);
      expect(result.matchSuggestions).toHaveLength(1);
      const teams = teamIds(result)[0]!.map((team) => [...team].sort());
      const expected = [
        [anchor.ticketId, partners[0]!.ticketId].sort(),
        [partners[1]!.ticketId, partners[2]!.ticketId].sort(),
      ];
      expect(teams.sort()).toEqual(expected.sort());
      const w = spreadWeight(2300, 1700, { ...SETTINGS_2V2, tolerance: 300 });
      expect(w).toBeCloseTo(1 / (1 + 2 * 1.4), 12);
      expect(result.matchSuggestions[0]!.matchScore).toBeCloseTo(1 / (1 + ((w * 800) / 300) ** 2), 6);
      // Fresher, the same anchor still waits: the weight lowers the cost, not the requirement.
      const early = { ...anchor, joinTimestamp: NOW - 3 };
      expect(
        findMatches(mode, [early, ...partners, ...centre, ...party], BASIC).matchSuggestions,
      ).toHaveLength(0);
    }
  });

  it("past the target wait, a 2v2 anchor far from the crowd takes a partner on its far side to balance the teams", () => {
    // The anchor's nearest neighbours all sit below it: their best window (1800, 1850, 1900 with
    // 2300) splits 1800 + 2300 against 1850 + 1900, an imbalance of 175. With 1450 from further away
    // the split 1450 + 2300 against 1850 + 1900 is exact, at a spread of 850: a lower cost.
    for (const withParty of [false, true]) {
      const anchor = ticket(2300, 25);
      const far = ticket(1450, 0);
      const near = [ticket(1900, 0), ticket(1850, 0), ticket(1800, 0), ticket(1780, 0), ticket(1760, 0)];
      // A party elsewhere (no server in common) sends the request through the general search.
      const party = withParty
        ? [ticket(500, 0, ["us"], { partyId: "p" }), ticket(510, 0, ["us"], { partyId: "p" })]
        : [];
      const mode = { ...DOUBLES, ratingTolerance: 300 };
      const result = findMatches(mode, [anchor, ...near, far, ...party], BASIC);
      expect(result.matchSuggestions).toHaveLength(1);
      const teams = teamIds(result)[0]!.map((team) => [...team].sort());
      const expected = [
        [anchor.ticketId, far.ticketId].sort(),
        [near[0]!.ticketId, near[1]!.ticketId].sort(),
      ];
      expect(teams.sort()).toEqual(expected.sort());
      // The anchor lies far above its group's median unit (1800; 1790 with the party's 505 too), so
      // its spread weighs less (spreadWeight): the score is of w · 850 with exact teams.
      const w = spreadWeight(2300, withParty ? 1790 : 1800, { ...SETTINGS_2V2, tolerance: 300 });
      expect(w).toBeLessThan(1);
      expect(result.matchSuggestions[0]!.matchScore).toBeCloseTo(1 / (1 + ((w * 850) / 300) ** 2), 6);
    }
  });

  it("balances the teams of a match by rating", () => {
    const tickets = [ticket(1000, 30), ticket(1100, 30), ticket(1900, 30), ticket(2000, 30)];
    const result = findMatches(DOUBLES, tickets, BASIC);
    const sums = result.matchSuggestions[0]!.teams.map((team) =>
      team.tickets.reduce((s, t) => s + t.rating, 0),
    );
    expect(sums).toEqual([3000, 3000]);
  });

  it("leaves an inner player out of a wider window when that balances the teams (near-contiguous window)", () => {
    // Contiguous, the oldest ticket (1000) could only take 1010, 1100 and 1190: spread 190, teams
    // (1000 + 1190) against (1010 + 1100), imbalance 40. Leaving 1100 out of the five gives spread
    // 200 and two teams of 2200: the lower spread + 8 · imbalance (200 against 510).
    const tickets = [ticket(1000, 5), ticket(1010, 0), ticket(1100, 0), ticket(1190, 0), ticket(1200, 0)];
    const result = findMatches({ ...DOUBLES, ratingTolerance: 1000 }, tickets, BASIC);
    expect(result.matchSuggestions).toHaveLength(1);
    const teams = result.matchSuggestions[0]!.teams.map((t) => t.tickets.map((x) => x.rating).sort());
    expect(teams.sort((x, y) => x[0]! - y[0]!)).toEqual([
      [1000, 1200],
      [1010, 1190],
    ]);
    expect(result.unmatchedTickets.map((t) => t.rating)).toEqual([1100]);
    // matchScore is still the documented formula: spread 200, balanced teams.
    expect(result.matchSuggestions[0]!.matchScore).toBeCloseTo(1 / (1 + 0.2 ** 2), 12);
  });

  it("reports for 5v5 the score of the documented formula, the one its choice maximised", () => {
    const ratings = [1000, 1030, 1050, 1100, 1120, 1180, 1200, 1260, 1290, 1300];
    const tickets = ratings.map((r) => ticket(r, 30));
    const result = findMatches({ numTeams: 2, numPlayersPerTeam: 5, ratingTolerance: 300 }, tickets, BASIC);
    expect(result.matchSuggestions).toHaveLength(1);
    const means = result.matchSuggestions[0]!.teams.map(
      (t) => t.tickets.reduce((s, x) => s + x.rating, 0) / 5,
    );
    const imbalance = Math.abs(means[0]! - means[1]!);
    // Sum 11530: the best split is 5760 against 5770 (every rating is a multiple of 10), imbalance 2.
    expect(imbalance).toBeLessThanOrEqual(2);
    expect(result.matchSuggestions[0]!.matchScore).toBeCloseTo(
      1 / (1 + ((300 + IMBALANCE_WEIGHT * imbalance) / 300) ** 2),
      12,
    );
  });

  it("prefers tight matches over matches of arrival order", () => {
    const tickets = [ticket(1000, 30), ticket(2000, 30), ticket(1010, 30), ticket(2010, 30)];
    const result = findMatches(DUEL, tickets, BASIC);
    expect(teamIds(result).map((teams) => teams.flat().sort())).toEqual(
      expect.arrayContaining([
        [tickets[0]!.ticketId, tickets[2]!.ticketId].sort(),
        [tickets[1]!.ticketId, tickets[3]!.ticketId].sort(),
      ]),
    );
  });

  it("keeps a party in one team of one match", () => {
    const a = ticket(1500, 30, ["eu"], { partyId: "p" });
    const b = ticket(1600, 30, ["eu"], { partyId: "p" });
    const result = findMatches(DOUBLES, [ticket(1550, 30), a, ticket(1550, 30), b], BASIC);
    const teams = teamIds(result)[0]!;
    expect(teams.some((team) => team.includes(a.ticketId) && team.includes(b.ticketId))).toBe(true);
  });

  it("leaves a party larger than a team unmatched", () => {
    const party = [1, 2, 3].map(() => ticket(1500, 30, ["eu"], { partyId: "big" }));
    const result = findMatches(
      DOUBLES,
      [...party, ticket(1500, 30), ticket(1500, 30), ticket(1500, 30)],
      BASIC,
    );
    expect(result.matchSuggestions).toHaveLength(0);
  });

  it("leaves a party whose members share no server unmatched", () => {
    const tickets = [
      ticket(1500, 30, ["eu"], { partyId: "p" }),
      ticket(1500, 30, ["us"], { partyId: "p" }),
      ticket(1500, 30, ["eu", "us"]),
      ticket(1500, 30, ["eu", "us"]),
    ];
    expect(findMatches(DOUBLES, tickets, BASIC).matchSuggestions).toHaveLength(0);
  });

  it("only matches tickets with exactly equal constraints, a missing object counting as empty", () => {
    const tickets = [
      ticket(1500, 30, ["eu"], { exactEqualityConstraints: { map: "dust", ranked: true } }),
      ticket(1500, 30, ["eu"], { exactEqualityConstraints: { ranked: true, map: "dust" } }),
      ticket(1500, 30, ["eu"], { exactEqualityConstraints: { map: "dust", ranked: "true" } }),
      ticket(1500, 30, ["eu"], { exactEqualityConstraints: null }),
      ticket(1500, 30, ["eu"]),
      ticket(1500, 30, ["eu"], { exactEqualityConstraints: { map: "dust" } }),
    ];
    const pairs = teamIds(findMatches(DUEL, tickets, BASIC)).map((teams) => teams.flat().sort());
    expect(pairs).toHaveLength(2);
    expect(pairs).toEqual(
      expect.arrayContaining([
        [tickets[0]!.ticketId, tickets[1]!.ticketId].sort(),
        [tickets[3]!.ticketId, tickets[4]!.ticketId].sort(),
      ]),
    );
  });

  it("chooses the shared server that is best in the tickets' list order (basic)", () => {
    const tickets = [ticket(1500, 30, ["us", "eu", "asia"]), ticket(1500, 30, ["asia", "eu", "us"])];
    expect(findMatches(DUEL, tickets, BASIC).matchSuggestions[0]!.server).toBe("eu");
    const lopsided = [ticket(1500, 30, ["eu", "us"]), ticket(1500, 30, ["us", "asia", "eu"])];
    expect(findMatches(DUEL, lopsided, BASIC).matchSuggestions[0]!.server).toBe("us");
  });

  it("chooses the server with the lowest worst latency, ties broken by mean latency (advanced)", () => {
    const worst = [
      ticket(1500, 30, { eu: 40, us: 10, asia: 45 }),
      ticket(1500, 30, { eu: 40, us: 90, asia: 20 }),
    ];
    expect(findMatches(DUEL, worst, ADVANCED).matchSuggestions[0]!.server).toBe("eu");
    const tie = [ticket(1500, 30, { eu: 50, us: 50 }), ticket(1500, 30, { eu: 50, us: 10 })];
    expect(findMatches(DUEL, tie, ADVANCED).matchSuggestions[0]!.server).toBe("us");
  });

  it("never uses a server above maxLatency (advanced)", () => {
    const tickets = [ticket(1500, 30, { eu: 30, us: 200 }), ticket(1500, 30, { eu: 180, us: 40 })];
    expect(findMatches(DUEL, tickets, ADVANCED).matchSuggestions[0]!.server).toBe("eu");
    const limited = findMatches({ ...DUEL, maxLatency: 100 }, tickets, ADVANCED);
    expect(limited.matchSuggestions).toHaveLength(0);
  });

  it("treats a server list on the advanced edition as usable at unknown latency", () => {
    const tickets = [ticket(1500, 30, ["asia", "us"]), ticket(1500, 30, { us: 80, asia: 20 })];
    expect(findMatches({ ...DUEL, maxLatency: 100 }, tickets, ADVANCED).matchSuggestions[0]!.server).toBe(
      "asia",
    );
  });

  it.each([
    ["1v1", 2, 1],
    ["2v2", 2, 2],
    ["5v5", 2, 5],
    ["3v3v3", 3, 3],
    ["1v1v1v1", 4, 1],
    ["a 16-player free-for-all", 16, 1],
    ["8-player co-op", 1, 8],
    ["8v8", 2, 8],
  ])("forms full %s matches from a long-waiting queue", (_name, numTeams, numPlayersPerTeam) => {
    const size = numTeams * numPlayersPerTeam;
    const tickets = Array.from({ length: 3 * size + 1 }, (_, i) => ticket(1000 + ((i * 7919) % 1000), 25));
    const result = findMatches({ numTeams, numPlayersPerTeam }, tickets, BASIC);
    expect(result.matchSuggestions).toHaveLength(3);
    expect(result.unmatchedTickets).toHaveLength(1);
    for (const match of result.matchSuggestions) {
      expect(match.teams).toHaveLength(numTeams);
      for (const team of match.teams) expect(team.tickets).toHaveLength(numPlayersPerTeam);
    }
  });

  it("groups neighbours in rating into the same free-for-all", () => {
    const low = Array.from({ length: 4 }, (_, i) => ticket(1000 + i, 0));
    const high = Array.from({ length: 4 }, (_, i) => ticket(2000 + i, 0));
    const result = findMatches({ numTeams: 4, numPlayersPerTeam: 1 }, [...high, ...low].reverse(), BASIC);
    expect(teamIds(result).map((teams) => teams.flat().sort())).toEqual(
      expect.arrayContaining([low.map((t) => t.ticketId).sort(), high.map((t) => t.ticketId).sort()]),
    );
  });

  it("derives ids from the seed: same seed same ids, other seed other ids", () => {
    const tickets = [ticket(1500, 0), ticket(1500, 0)];
    const a = findMatches(DUEL, tickets, { ...BASIC, idSeed: "one" });
    const b = findMatches(DUEL, tickets, { ...BASIC, idSeed: "one" });
    const c = findMatches(DUEL, tickets, { ...BASIC, idSeed: "two" });
    expect(b.matchSuggestions[0]!.id).toBe(a.matchSuggestions[0]!.id);
    expect(c.matchSuggestions[0]!.id).not.toBe(a.matchSuggestions[0]!.id);
    expect(c.matchSuggestions[0]!.teams.map((t) => t.id)).not.toEqual(
      a.matchSuggestions[0]!.teams.map((t) => t.id),
    );
  });

  it("handles an empty queue", () => {
    expect(findMatches(DOUBLES, [], BASIC)).toEqual({
      matchSuggestions: [],
      unmatchedTickets: [],
      ticketOrder: new Int32Array(0),
    });
  });
});

describe("ticketOrder", () => {
  it("lists the request index of every returned ticket in the order the answer lists them", () => {
    const tickets = Array.from({ length: 61 }, (_, i) => ({
      ticketId: `t${i}`,
      joinTimestamp: 1000 - (i % 40),
      rating: 1000 + ((i * 37) % 500),
      servers: i % 3 === 0 ? ["a", "b"] : ["b"],
      ...(i % 7 === 0 && i < 50 ? { partyId: `p${Math.floor(i / 14)}` } : {}),
    }));
    for (const mode of [
      { numTeams: 2, numPlayersPerTeam: 2 },
      { numTeams: 3, numPlayersPerTeam: 3 },
      { numTeams: 1, numPlayersPerTeam: 4 },
    ]) {
      const result = findMatches(mode, tickets, { now: 1030, idSeed: "s" });
      const listed = [
        ...result.matchSuggestions.flatMap((m) => m.teams.flatMap((t) => t.tickets)),
        ...result.unmatchedTickets,
      ];
      expect(Array.from(result.ticketOrder, (i) => tickets[i])).toEqual(listed);
      expect(listed.every((t, k) => t === tickets[result.ticketOrder[k]!])).toBe(true);
    }
  });
});
