import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { backfillTarget, chooseReplacement } from "./backfill-choice.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe("backfill choice", () => {
  it("targets the rating that evens the team's sum with the other teams' mean", () => {
    // Team 0 lost a player; its remaining one is 1400; team 1 sums 3000.
    expect(backfillTarget([[1400], [1500, 1500]], 0)).toBe(1600);
    // Three teams: the others' mean sum is 3150.
    expect(backfillTarget([[1500], [1500, 1600], [1500, 1700]], 0)).toBe(1650);
    // One team: its mean.
    expect(backfillTarget([[1400, 1600]], 0)).toBe(1500);
  });

  it("picks the nearest rating, then the longest wait, then the smallest id", () => {
    const a = { playerId: "a", rating: 1590, joinedAt: at(5) };
    const b = { playerId: "b", rating: 1610, joinedAt: at(3) };
    const c = { playerId: "c", rating: 1610, joinedAt: at(3) };
    const far = { playerId: "d", rating: 2000, joinedAt: at(0) };
    expect(chooseReplacement(1600, [far, a, c, b])?.playerId).toBe("b");
    expect(chooseReplacement(1600, [far])?.playerId).toBe("d");
    expect(chooseReplacement(1600, [])).toBeUndefined();
  });

  it("no other candidate brings the team nearer to balance than the chosen one", () => {
    const candidate = fc.record({
      playerId: fc.string({ minLength: 1, maxLength: 4 }),
      rating: fc.integer({ min: 500, max: 3000 }),
      joinedAt: fc.integer({ min: 0, max: 1000 }).map(at),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 500, max: 3000 }), { maxLength: 5 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.array(candidate, { minLength: 1, maxLength: 20 }),
        (teams, candidates) => {
          const target = backfillTarget(teams, 0);
          const chosen = chooseReplacement(target, candidates)!;
          for (const c of candidates)
            expect(Math.abs(c.rating - target)).toBeGreaterThanOrEqual(Math.abs(chosen.rating - target));
        },
      ),
    );
  });
});
