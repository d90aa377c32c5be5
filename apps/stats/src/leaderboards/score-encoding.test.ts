import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import {
  decodeScore,
  encodeScore,
  MAX_POINTS,
  pointsOfScore,
  SCORE_EPOCH_MS,
  TIME_SPAN,
} from "./score-encoding.js";

const pointsArb = fc.integer({ min: 0, max: MAX_POINTS });
const secondsArb = fc.integer({ min: 0, max: TIME_SPAN - 1 });
const at = (seconds: number) => new Date(SCORE_EPOCH_MS + seconds * 1000);

describe("leaderboard score encoding", () => {
  it("round-trips points and time exactly within the documented bounds (fast-check)", () => {
    fc.assert(
      fc.property(pointsArb, secondsArb, (points, seconds) => {
        const score = encodeScore(points, at(seconds));
        expect(Number.isSafeInteger(score)).toBe(true);
        expect(decodeScore(score)).toEqual({ points, reachedAt: at(seconds) });
        expect(pointsOfScore(score)).toBe(points);
      }),
    );
  });

  it("orders by points, then by who reached them first (fast-check)", () => {
    fc.assert(
      fc.property(pointsArb, secondsArb, pointsArb, secondsArb, (p1, s1, p2, s2) => {
        const a = encodeScore(p1, at(s1));
        const b = encodeScore(p2, at(s2));
        if (p1 !== p2) expect(a > b).toBe(p1 > p2);
        else if (s1 !== s2) expect(a > b).toBe(s1 < s2);
        else expect(a).toBe(b);
      }),
    );
  });

  it("clamps times before 2020 and points beyond the maximum", () => {
    expect(decodeScore(encodeScore(10, new Date(0))).reachedAt).toEqual(at(0));
    expect(pointsOfScore(encodeScore(MAX_POINTS + 5, at(1)))).toBe(MAX_POINTS);
    expect(encodeScore(MAX_POINTS, at(0))).toBeLessThan(2 ** 53);
  });
});
