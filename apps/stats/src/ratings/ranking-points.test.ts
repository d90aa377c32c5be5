import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { MAX_RANKING_POINTS, nextRankingPoints, rankingPointsDelta } from "./ranking-points.js";

const inputArb = fc.record({
  current: fc.integer({ min: 0, max: MAX_RANKING_POINTS }),
  outcome: fc.constantFrom("win" as const, "loss" as const, "draw" as const),
  predictedWin: fc.double({ min: 0, max: 1, noNaN: true }),
  numTeams: fc.integer({ min: 2, max: 8 }),
  placeBehind: fc.double({ min: 0, max: 1, noNaN: true }),
});

describe("ranking points", () => {
  it("pays 30 for an even win, 20 for an expected one and 40 for an upset", () => {
    const base = { current: 100, numTeams: 2, placeBehind: 0 };
    expect(rankingPointsDelta({ ...base, outcome: "win", predictedWin: 0.5 })).toBe(30);
    expect(rankingPointsDelta({ ...base, outcome: "win", predictedWin: 1 })).toBe(20);
    expect(rankingPointsDelta({ ...base, outcome: "win", predictedWin: 0 })).toBe(40);
  });

  it("costs 15 for an even loss, and the favourite loses more than the underdog", () => {
    const base = { current: 100, numTeams: 2, placeBehind: 1 };
    expect(rankingPointsDelta({ ...base, outcome: "loss", predictedWin: 0.5 })).toBe(-15);
    expect(rankingPointsDelta({ ...base, outcome: "loss", predictedWin: 0.9 })).toBe(-19);
    expect(rankingPointsDelta({ ...base, outcome: "loss", predictedWin: 0.1 })).toBe(-11);
  });

  it("gives nothing for an even draw and floors at zero", () => {
    expect(
      rankingPointsDelta({ current: 0, outcome: "draw", predictedWin: 0.5, numTeams: 2, placeBehind: 0 }),
    ).toBe(0);
    expect(
      nextRankingPoints({ current: 5, outcome: "loss", predictedWin: 0.5, numTeams: 2, placeBehind: 1 }),
    ).toBe(0);
  });

  it("is an integer, never negative, never lowered by a win, never raised by a loss (fast-check)", () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const next = nextRankingPoints(input);
        expect(Number.isInteger(next)).toBe(true);
        expect(next).toBeGreaterThanOrEqual(0);
        expect(next).toBeLessThanOrEqual(MAX_RANKING_POINTS);
        if (input.outcome === "win") expect(next).toBeGreaterThanOrEqual(input.current);
        if (input.outcome === "loss") expect(next).toBeLessThanOrEqual(input.current);
      }),
    );
  });
});
