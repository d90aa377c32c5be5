import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { DEFAULT_RATING } from "../ratings/rating-model.js";
import {
  carryOver,
  defaultStatsSeasons,
  seasonName,
  seasonNumber,
  seasonStartError,
  selectStatsSeasons,
} from "./season-rules.js";

describe("season names", () => {
  it("reads and writes S<N>", () => {
    expect(seasonNumber("S1")).toBe(1);
    expect(seasonNumber("S12")).toBe(12);
    for (const bad of ["S0", "S01", "s1", "1", "S", "S1 ", "S-1"]) expect(seasonNumber(bad)).toBeUndefined();
    expect(seasonName(7)).toBe("S7");
  });
});

describe("season carry-over", () => {
  it("keeps ratings at 1, resets them at 0, halves the distance at 0.5", () => {
    const r = { mu: 35, sigma: 3 };
    expect(carryOver(r, [1])).toEqual(r);
    expect(carryOver(r, [0])).toEqual(DEFAULT_RATING);
    const half = carryOver(r, [0.5]);
    expect(half.mu).toBeCloseTo(30, 10);
    expect(half.sigma).toBeCloseTo((3 + 25 / 3) / 2, 10);
  });

  it("applies skipped seasons one after the other (fast-check)", () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(
        fc.record({
          mu: fc.double({ min: -20, max: 70, noNaN: true }),
          sigma: fc.double({ min: 0.1, max: 9, noNaN: true }),
        }),
        unit,
        unit,
        (r, a, b) => {
          const stepwise = carryOver(carryOver(r, [a]), [b]);
          const once = carryOver(r, [a, b]);
          expect(once.mu).toBeCloseTo(stepwise.mu, 8);
          expect(once.sigma).toBeCloseTo(stepwise.sigma, 8);
          // Never further from the default than before.
          expect(Math.abs(once.mu - DEFAULT_RATING.mu)).toBeLessThanOrEqual(
            Math.abs(r.mu - DEFAULT_RATING.mu) + 1e-9,
          );
        },
      ),
    );
  });
});

describe("getPlayerStats season selection", () => {
  it("answers only S1 while S1 is current, else the current and the previous season", () => {
    expect(defaultStatsSeasons(1)).toEqual([1]);
    expect(defaultStatsSeasons(4)).toEqual([4, 3]);
    expect(selectStatsSeasons(undefined, 3)).toEqual({ ok: true, seasons: [3, 2] });
  });

  it("refuses more than 5 seasons and names that are not seasons", () => {
    expect(selectStatsSeasons(["S1", "S2", "S3", "S4", "S5", "S6"], 6).ok).toBe(false);
    expect(selectStatsSeasons(["S1", "X"], 6).ok).toBe(false);
    expect(selectStatsSeasons(["S2", "S2", "S1"], 6)).toEqual({ ok: true, seasons: [2, 1] });
  });
});

describe("season starts", () => {
  it("may be scheduled up to 365 days after now, not later", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    expect(seasonStartError(new Date("2026-12-31T00:00:00Z"), now)).toBeUndefined();
    expect(seasonStartError(new Date("2027-01-01T00:00:00.001Z"), now)).toBe(
      "must be at most 365 days after now (2027-01-01T00:00:00.000Z)",
    );
    expect(seasonStartError(new Date("9999-12-31T00:00:00Z"), now)).toBeDefined();
  });
});
