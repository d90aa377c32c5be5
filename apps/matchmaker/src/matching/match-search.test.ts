import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { searchMatchesGeneral } from "./match-search-general.js";
import { SinglesScratch, searchSingles, singlesSearchApplies } from "./match-search-singles.js";
import { buildQueueModel } from "./queue-model.js";
import { TeamBalancer } from "./team-balancing.js";
import type { FoundMatches, MatchTicket } from "./types.js";

const NOW = 1_700_000_000;
const SERVERS = ["a", "b", "c", "d", "e", "f"];

function plain(found: FoundMatches) {
  const total = found.unitStart[found.count]!;
  return {
    count: found.count,
    unitStart: Array.from(found.unitStart.subarray(0, found.count + 1)),
    units: Array.from(found.units.subarray(0, total)),
    unitTeam: Array.from(found.unitTeam.subarray(0, total)),
    score: Array.from(found.score.subarray(0, found.count)),
  };
}

describe("single-ticket search (fast path)", () => {
  const scratch = new SinglesScratch();
  it("makes exactly the same matches as the general search on random queues", () => {
    fc.assert(
      fc.property(
        fc.constantFrom([2, 1], [2, 2], [2, 5], [3, 3], [1, 4], [4, 1], [2, 8]),
        fc.integer({ min: 1, max: 600 }),
        fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
        fc.array(
          fc.record({
            rating: fc.oneof(fc.constantFrom(1000, 1500), fc.integer({ min: 0, max: 3000 })),
            wait: fc.integer({ min: 0, max: 40 }),
            servers: fc.subarray(SERVERS, { minLength: 1 }),
            group: fc.integer({ min: 0, max: 2 }),
          }),
          { maxLength: 150 },
        ),
        ([teams, perTeam], tolerance, maxWait, rows) => {
          const tickets: MatchTicket[] = rows.map((row, i) => ({
            ticketId: `t${i}`,
            joinTimestamp: NOW - row.wait,
            rating: row.rating,
            servers: row.servers,
            exactEqualityConstraints: row.group === 0 ? undefined : { g: row.group },
          }));
          const model = buildQueueModel({ numTeams: teams!, numPlayersPerTeam: perTeam! }, tickets);
          expect(singlesSearchApplies(model, teams!, perTeam!)).toBe(true);
          const settings = {
            teams: teams!,
            perTeam: perTeam!,
            now: NOW,
            targetWaitingTime: 20,
            maxWaitingTime: maxWait ?? Number.POSITIVE_INFINITY,
            tolerance,
          };
          const general = plain(searchMatchesGeneral(model, settings, new TeamBalancer()));
          const fast = plain(searchSingles(model, settings, scratch, new TeamBalancer()));
          expect(fast).toEqual(general);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("does not apply to parties or to more than 32 servers", () => {
    const party: MatchTicket[] = [
      { ticketId: "a", joinTimestamp: NOW, rating: 1, servers: ["x"], partyId: "p" },
      { ticketId: "b", joinTimestamp: NOW, rating: 1, servers: ["x"], partyId: "p" },
    ];
    expect(singlesSearchApplies(buildQueueModel({ numTeams: 2, numPlayersPerTeam: 2 }, party), 2, 2)).toBe(
      false,
    );
    const many: MatchTicket[] = Array.from({ length: 40 }, (_, i) => ({
      ticketId: `t${i}`,
      joinTimestamp: NOW,
      rating: i,
      servers: [`s${i}`],
    }));
    expect(singlesSearchApplies(buildQueueModel({ numTeams: 2, numPlayersPerTeam: 1 }, many), 2, 1)).toBe(
      false,
    );
  });
});
