import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { displayRating } from "../ratings/display-scale.js";
import { MAX_RANKING_POINTS } from "../ratings/ranking-points.js";
import { type CompletingTeam, type RatedPlayer, rateCompletion } from "./completion-rating.js";

const NOW = new Date("2026-06-01T12:00:00Z");

const ratingArb = fc.record({
  mu: fc.double({ min: 0, max: 60, noNaN: true }),
  sigma: fc.double({ min: 0.5, max: 25 / 3, noNaN: true }),
});
const standingArb = fc.option(
  fc.record({
    points: fc.integer({ min: 0, max: 5000 }),
    pointsChangedAt: fc.constant(new Date("2026-05-01T00:00:00Z")),
    wins: fc.nat(100),
    losses: fc.nat(100),
    draws: fc.nat(100),
    matches: fc.nat(300),
  }),
  { nil: undefined },
);
const playerArb = fc.record({
  score: fc.integer({ min: 0, max: 100 }),
  rating: ratingArb,
  standing: standingArb,
});

/** A match of 2-4 teams of 1-3 players, ranks 0..teams-1 (ties allowed). */
const matchArb = fc
  .tuple(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 3 }))
  .chain(([numTeams, size]) =>
    fc.array(
      fc.record({
        rank: fc.integer({ min: 0, max: numTeams - 1 }),
        players: fc.array(playerArb, { minLength: size, maxLength: size }),
      }),
      { minLength: numTeams, maxLength: numTeams },
    ),
  )
  .map((teams): CompletingTeam[] =>
    teams.map((t, ti) => ({ ...t, players: t.players.map((p, pi) => ({ ...p, playerId: `p${ti}-${pi}` })) })),
  );

const byTeam = (rated: readonly RatedPlayer[], team: number) => rated.filter((r) => r.teamIndex === team);

describe("the rating step of a completion", () => {
  it("never leaves ranking points below 0 or above the leaderboard's range", () => {
    fc.assert(
      fc.property(matchArb, (teams) => {
        for (const r of rateCompletion(teams, NOW)) {
          expect(r.pointsAfter).toBeGreaterThanOrEqual(0);
          expect(r.pointsAfter).toBeLessThanOrEqual(MAX_RANKING_POINTS);
          expect(r.rankingDelta).toBe(r.pointsAfter - r.pointsBefore);
        }
      }),
    );
  });

  it("never gives a team fewer points for a better rank, all else equal", () => {
    fc.assert(
      fc.property(matchArb, fc.nat(), (teams, pick) => {
        const i = pick % teams.length;
        const ranks = [...new Set(teams.map((t) => t.rank))].sort((a, b) => a - b);
        const at = (rank: number) =>
          byTeam(
            rateCompletion(
              teams.map((t, ti) => (ti === i ? { ...t, rank } : t)),
              NOW,
            ),
            i,
          );
        for (let k = 1; k < ranks.length; k++) {
          const better = at(ranks[k - 1]!);
          const worse = at(ranks[k]!);
          for (const [p, b] of better.entries())
            expect(b.pointsAfter).toBeGreaterThanOrEqual(worse[p]!.pointsAfter);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("moves no one apart in a draw: two teams' mean skills end no further apart", () => {
    fc.assert(
      fc.property(matchArb, (teams) => {
        const tied = teams.slice(0, 2).map((t) => ({ ...t, rank: 0 }));
        const rated = rateCompletion(tied, NOW);
        const meanMu = (rs: readonly { mu: number }[]) => rs.reduce((n, r) => n + r.mu, 0) / rs.length;
        for (let a = 0; a < tied.length; a++) {
          for (let b = a + 1; b < tied.length; b++) {
            const before = Math.abs(
              meanMu(tied[a]!.players.map((p) => p.rating)) - meanMu(tied[b]!.players.map((p) => p.rating)),
            );
            const after = Math.abs(
              meanMu(byTeam(rated, a).map((r) => r.after)) - meanMu(byTeam(rated, b).map((r) => r.after)),
            );
            // Floating-point noise aside (openskill's updates are sums of small terms).
            expect(after).toBeLessThanOrEqual(before + 1e-6);
          }
        }
      }),
    );
  });

  it("moves nobody in a tie of equal ratings, whatever the number of teams", () => {
    fc.assert(
      fc.property(matchArb, ratingArb, (teams, rating) => {
        const equal = teams.map((t) => ({ rank: 0, players: t.players.map((p) => ({ ...p, rating })) }));
        const mus = rateCompletion(equal, NOW).map((r) => r.after.mu);
        for (const mu of mus) expect(mu).toBeCloseTo(rating.mu, 9);
      }),
    );
  });

  it("rounds the rating delta once: the displayed ratings' difference, to 2 decimals", () => {
    fc.assert(
      fc.property(matchArb, (teams) => {
        for (const r of rateCompletion(teams, NOW)) {
          expect(r.ratingDelta).toBe(
            Math.round((displayRating(r.after) - displayRating(r.before)) * 100) / 100,
          );
          expect(Math.abs(r.ratingDelta * 100 - Math.round(r.ratingDelta * 100))).toBeLessThan(1e-6);
        }
      }),
    );
  });

  it("never lowers a winner's displayed rating or raises a loser's points", () => {
    fc.assert(
      fc.property(matchArb, (teams) => {
        for (const r of rateCompletion(teams, NOW)) {
          if (r.outcome === "win") expect(r.ratingDelta).toBeGreaterThanOrEqual(0);
          if (r.outcome === "loss") expect(r.pointsAfter).toBeLessThanOrEqual(r.pointsBefore);
        }
      }),
    );
  });

  it("counts the result once and keeps the time points were reached when they do not change", () => {
    const reachedAt = new Date("2026-01-01T00:00:00Z");
    const standing = { points: 0, pointsChangedAt: reachedAt, wins: 2, losses: 3, draws: 1, matches: 6 };
    const [winner, loser] = rateCompletion(
      [
        { rank: 0, players: [{ playerId: "w", score: 1, rating: { mu: 25, sigma: 8 }, standing }] },
        { rank: 1, players: [{ playerId: "l", score: 0, rating: { mu: 25, sigma: 8 }, standing }] },
      ],
      NOW,
    );
    expect(winner).toMatchObject({ outcome: "win", wins: 3, losses: 3, matches: 7, pointsChangedAt: NOW });
    // The loser had 0 points and keeps 0: its place on the board keeps its time.
    expect(loser).toMatchObject({
      outcome: "loss",
      wins: 2,
      losses: 4,
      pointsAfter: 0,
      pointsChangedAt: reachedAt,
    });
  });
});
