import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import {
  choiceCost,
  defaultRatingTolerance,
  FRESH_REQUIRED_SCORE,
  IMBALANCE_WEIGHT,
  matchScore,
  maxSpreadFor,
  requiredScore,
  spreadWeight,
  TAIL_SPREAD_SLOPE,
  TAIL_START,
} from "./match-quality.js";

describe("matchScore", () => {
  it("is 1 for identical ratings and stays within [0, 1]", () => {
    expect(matchScore(0, 0, 300, 1)).toBe(1);
    fc.assert(
      fc.property(
        fc.double({ min: 0, noNaN: true }),
        fc.double({ min: 0, noNaN: true }),
        fc.double({ min: 1e-9, max: 1e9 }),
        (spread, imbalance, tolerance) => {
          const score = matchScore(spread, imbalance, tolerance, 1);
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("falls as the spread or the team imbalance grows", () => {
    expect(matchScore(100, 0, 300, 1)).toBeGreaterThan(matchScore(200, 0, 300, 1));
    expect(matchScore(100, 10, 300, 1)).toBeGreaterThan(matchScore(100, 50, 300, 1));
    expect(matchScore(300, 0, 300, 1)).toBeCloseTo(0.5);
  });

  it("is the documented formula, and orders candidates exactly as the search's choice does", () => {
    expect(matchScore(100, 10, 300, 1)).toBeCloseTo(1 / (1 + ((100 + IMBALANCE_WEIGHT * 10) / 300) ** 2), 12);
    // A spread of one tolerance made up of imbalance alone scores 0.5, like a plain spread would.
    expect(matchScore(0, 300 / IMBALANCE_WEIGHT, 300, 1)).toBeCloseTo(0.5, 12);
    const candidate = fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 500 }));
    fc.assert(
      fc.property(candidate, candidate, ([s1, i1], [s2, i2]) => {
        const byScore = Math.sign(matchScore(s1, i1, 300, 1) - matchScore(s2, i2, 300, 1));
        const byCost = Math.sign(choiceCost(s2, i2, 1) - choiceCost(s1, i1, 1));
        expect(byScore).toBe(byCost);
      }),
    );
  });
});

describe("spreadWeight", () => {
  const doubles = {
    teams: 2,
    perTeam: 2,
    now: 0,
    targetWaitingTime: 20,
    maxWaitingTime: Infinity,
    tolerance: 300,
  };
  it("is 1 within TAIL_START tolerances of the median and falls beyond it, alike on both sides", () => {
    expect(spreadWeight(1500, 1500, doubles)).toBe(1);
    expect(spreadWeight(1500 + 300 * TAIL_START, 1500, doubles)).toBe(1);
    expect(spreadWeight(1500 - 300 * TAIL_START, 1500, doubles)).toBe(1);
    expect(spreadWeight(1500 + 300 * (TAIL_START + 1), 1500, doubles)).toBeCloseTo(
      1 / (1 + TAIL_SPREAD_SLOPE),
      12,
    );
    expect(spreadWeight(2400, 1500, doubles)).toBeCloseTo(spreadWeight(600, 1500, doubles), 12);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e4, noNaN: true }),
        fc.double({ min: 0, max: 1e4, noNaN: true }),
        (d1, d2) => {
          const [near, far] = d1 <= d2 ? [d1, d2] : [d2, d1];
          const w1 = spreadWeight(1500 + near, 1500, doubles);
          const w2 = spreadWeight(1500 + far, 1500, doubles);
          expect(w2).toBeLessThanOrEqual(w1);
          expect(w2).toBeGreaterThan(0);
          expect(w1).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("is 1 where no teams are balanced: one player a team, or one team", () => {
    expect(spreadWeight(3000, 1500, { ...doubles, perTeam: 1 })).toBe(1);
    expect(spreadWeight(3000, 1500, { ...doubles, teams: 1, perTeam: 4 })).toBe(1);
    expect(spreadWeight(3000, 1500, doubles)).toBeLessThan(1);
  });

  it("keeps one function: for any weight the score orders candidates as the cost does, and the largest acceptable spread meets the requirement", () => {
    const candidate = fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 500 }));
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        candidate,
        candidate,
        (w, [s1, i1], [s2, i2]) => {
          const byScore = Math.sign(matchScore(s1, i1, 300, w) - matchScore(s2, i2, 300, w));
          const byCost = Math.sign(choiceCost(s2, i2, w) - choiceCost(s1, i1, w));
          expect(byScore).toBe(byCost);
          const required = requiredScore(5, 20, false);
          expect(matchScore(maxSpreadFor(required, 300, w), 0, 300, w)).toBeCloseTo(required, 9);
        },
      ),
    );
  });
});

describe("requiredScore", () => {
  it("asks fresh matches for a good score and relaxes to anything at targetWaitingTime", () => {
    expect(requiredScore(0, 20, false)).toBe(FRESH_REQUIRED_SCORE);
    expect(requiredScore(20, 20, false)).toBe(0);
    expect(requiredScore(5, 20, true)).toBe(0);
    for (let wait = 1; wait <= 20; wait++) {
      expect(requiredScore(wait, 20, false)).toBeLessThan(requiredScore(wait - 1, 20, false));
    }
  });

  it("translates into a largest acceptable spread", () => {
    const required = requiredScore(5, 20, false);
    const spread = maxSpreadFor(required, 300, 1);
    expect(matchScore(spread, 0, 300, 1)).toBeCloseTo(required, 9);
    expect(maxSpreadFor(0, 300, 1)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("defaultRatingTolerance", () => {
  it("is about the standard deviation of normally spread ratings", () => {
    const ratings = Float64Array.from(
      { length: 2001 },
      (_, i) => 1500 + 300 * Math.SQRT2 * inverseErf((2 * (i + 0.5)) / 2001 - 1),
    );
    expect(defaultRatingTolerance(ratings)).toBeGreaterThan(280);
    expect(defaultRatingTolerance(ratings)).toBeLessThan(320);
  });

  it("is positive when every rating is the same, including 0", () => {
    expect(defaultRatingTolerance(Float64Array.of(0, 0, 0))).toBeGreaterThan(0);
    expect(defaultRatingTolerance(Float64Array.of(1500, 1500))).toBeGreaterThan(0);
  });

  it("ignores a few outliers", () => {
    const ratings = Float64Array.from([
      ...new Array(50).fill(1000),
      ...new Array(50).fill(1100),
      9000,
      -9000,
    ]);
    expect(defaultRatingTolerance(ratings)).toBeLessThan(100);
  });
});

/** Inverse error function (Giles' approximation), enough for generating test quantiles. */
function inverseErf(x: number): number {
  let w = -Math.log((1 - x) * (1 + x));
  let p: number;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-8;
    for (const c of [
      3.43273939e-7, -3.5233877e-6, -4.39150654e-6, 0.00021858087, -0.00125372503, -0.00417768164,
      0.246640727, 1.50140941,
    ])
      p = c + p * w;
  } else {
    w = Math.sqrt(w) - 3;
    p = -0.000200214257;
    for (const c of [
      0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406,
      2.83297682,
    ])
      p = c + p * w;
  }
  return p * x;
}
