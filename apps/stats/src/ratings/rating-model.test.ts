import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { rate, rating } from "openskill";
import { displayRating, displayUncertainty } from "./display-scale.js";
import { DEFAULT_RATING, outcomes, RATING_MODEL, rateMatch } from "./rating-model.js";

const close = (actual: number, expected: number, digits = 2): void => {
  expect(actual).toBeCloseTo(expected, digits);
};

describe("openskill 5.0.1 with the pinned defaults (golden values from openskill's README)", () => {
  it("pins openskill's own defaults", () => {
    expect(rating()).toEqual(DEFAULT_RATING);
    expect(RATING_MODEL).toMatchObject({ mu: 25, sigma: 25 / 3, beta: 25 / 6, tau: 25 / 300 });
  });

  it("rates the README's 2v2 (a1, a2 beat b1, b2) to its published figures", () => {
    const a1 = rating();
    const a2 = rating({ mu: 32.444, sigma: 5.123 });
    const b1 = rating({ mu: 43.381, sigma: 2.421 });
    const b2 = rating({ mu: 25.188, sigma: 6.211 });
    const [winners, losers] = rateMatch([
      { rank: 0, players: [a1, a2] },
      { rank: 1, players: [b1, b2] },
    ]);
    // README: [[28.67…, 8.07…], [33.83…, 5.06…]], [[43.07…, 2.42…], [23.15…, 6.14…]]
    close(winners!.players[0]!.mu, 28.67);
    close(winners!.players[0]!.sigma, 8.07);
    close(winners!.players[1]!.mu, 33.83);
    close(winners!.players[1]!.sigma, 5.06);
    close(losers!.players[0]!.mu, 43.07);
    close(losers!.players[1]!.mu, 23.15);
    close(losers!.players[1]!.sigma, 6.14);
    // limitSigma keeps b1's sigma at its prior 2.421 where plain openskill gives 2.418: never above.
    expect(losers!.players[0]!.sigma).toBeLessThanOrEqual(2.421);
  });

  it("rates the README's four free-for-all players ranked [4, 1, 3, 2]", () => {
    const r = rating();
    const result = rateMatch([4, 1, 3, 2].map((rank) => ({ rank, players: [r] })));
    const mus = result.map((t) => t.players[0]!.mu);
    // README: 20.963, 27.795, 24.689, 26.553
    for (const [i, mu] of [20.963, 27.795, 24.689, 26.553].entries()) close(mus[i]!, mu, 2);
    expect(result.map((t) => t.outcome)).toEqual(["loss", "win", "loss", "loss"]);
  });

  it("treats equal ranks as a tie, as the README's score example [37, 19, 37, 42] does", () => {
    const r = rating();
    // Scores 37, 19, 37, 42 are ranks 1, 2, 1, 0: the two 37s tie for second.
    const result = rateMatch([1, 2, 1, 0].map((rank) => ({ rank, players: [r] })));
    // README (tau 0): 24.689, 22.826, 24.689, 27.795
    for (const [i, mu] of [24.689, 22.826, 24.689, 27.795].entries()) close(result[i]!.players[0]!.mu, mu, 2);
    expect(result[0]!.players[0]).toEqual(result[2]!.players[0]);
  });

  it("predicts 50% for two equal teams, and favours the stronger one", () => {
    const r = rating();
    const [a, b] = rateMatch([
      { rank: 0, players: [r] },
      { rank: 1, players: [r] },
    ]);
    expect(a!.predictedWin).toBeCloseTo(0.5, 10);
    expect(b!.predictedWin).toBeCloseTo(0.5, 10);
    const [strong] = rateMatch([
      { rank: 0, players: [{ mu: 33.564, sigma: 1.123 }] },
      { rank: 1, players: [r] },
    ]);
    // openskill 5.0.1's predictWin (its README still shows an older formula's 0.549).
    close(strong!.predictedWin, 0.7979, 4);
  });

  it("shows why limitSigma is on: without it a strong winner's displayed rating drops", () => {
    const strong = { mu: 40, sigma: 1 };
    const weak = { mu: 20, sigma: 1 };
    const plain = rate([[strong], [weak]], { tau: RATING_MODEL.tau })[0][0];
    expect(displayRating(plain)).toBeLessThan(displayRating(strong));
    const [winners] = rateMatch([
      { rank: 0, players: [strong] },
      { rank: 1, players: [weak] },
    ]);
    expect(displayRating(winners!.players[0]!)).toBeGreaterThanOrEqual(displayRating(strong));
  });

  it("shows a new player as 1500 ± 333.33", () => {
    expect(displayRating(DEFAULT_RATING)).toBe(1500);
    expect(displayUncertainty(DEFAULT_RATING)).toBe(333.33);
  });
});

describe("outcomes", () => {
  it("gives one winner, ties for first as draws, everyone else a loss", () => {
    expect(outcomes([0, 1])).toEqual(["win", "loss"]);
    expect(outcomes([0, 0])).toEqual(["draw", "draw"]);
    expect(outcomes([0, 1, 1, 2])).toEqual(["win", "loss", "loss", "loss"]);
    expect(outcomes([2, 1, 1])).toEqual(["loss", "draw", "draw"]);
  });
});

const ratingArb = fc.record({
  mu: fc.double({ min: -10, max: 60, noNaN: true }),
  sigma: fc.double({ min: 0.5, max: 9, noNaN: true }),
});
const matchArb = fc
  .record({
    numTeams: fc.integer({ min: 2, max: 4 }),
    teamSize: fc.integer({ min: 1, max: 5 }),
  })
  .chain(({ numTeams, teamSize }) =>
    fc.array(
      fc.record({
        rank: fc.integer({ min: 0, max: numTeams - 1 }),
        players: fc.array(ratingArb, { minLength: teamSize, maxLength: teamSize }),
      }),
      { minLength: numTeams, maxLength: numTeams },
    ),
  );

describe("rating properties (fast-check)", () => {
  it("never lowers a winner's displayed rating, and never raises anyone's sigma", () => {
    fc.assert(
      fc.property(matchArb, (teams) => {
        const result = rateMatch(teams);
        result.forEach((team, i) => {
          team.players.forEach((after, j) => {
            const before = teams[i]!.players[j]!;
            expect(after.sigma).toBeLessThanOrEqual(before.sigma);
            if (team.outcome === "win") {
              expect(after.mu).toBeGreaterThanOrEqual(before.mu);
              expect(displayRating(after)).toBeGreaterThanOrEqual(displayRating(before));
            }
          });
        });
      }),
    );
  });

  it("gives win chances that sum to 1 and finite ratings", () => {
    fc.assert(
      fc.property(matchArb, (teams) => {
        const result = rateMatch(teams);
        expect(result.reduce((s, t) => s + t.predictedWin, 0)).toBeCloseTo(1, 9);
        for (const t of result) for (const p of t.players) expect(Number.isFinite(p.mu + p.sigma)).toBe(true);
      }),
    );
  });

  it("gives teammates of equal ratings equal updates whatever their order", () => {
    fc.assert(
      fc.property(ratingArb, ratingArb, (a, b) => {
        const [x] = rateMatch([
          { rank: 0, players: [a, a] },
          { rank: 1, players: [b, b] },
        ]);
        expect(x!.players[0]).toEqual(x!.players[1]);
      }),
    );
  });
});
