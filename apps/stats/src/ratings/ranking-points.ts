import type { Outcome } from "./rating-model.js";

/**
 * Ranking points: whole numbers per game and season, starting at 0 each season. They reward
 * results, adjusted by how expected the result was (p = the team's predicted win chance before
 * the match, n = the number of teams):
 *
 *   win   +round(20 + 20 × (1 − p))                     +20 … +40 (an upset pays more)
 *   draw  +round(20 × (1/n − p))                        −20 … +20 (favourites lose a little)
 *   loss  −round((10 + 10 × p) × behind)                −20 … 0  (favourites lose more;
 *         behind = share of the other teams that finished ahead, 1 in a two-team match)
 *
 * then kept within 0 … MAX_RANKING_POINTS (the leaderboard's exact range). So points are never negative, a win never lowers them (+20 at least) and a
 * loss never raises them.
 */
export const RANKING_POINTS = Object.freeze({
  winBase: 20,
  winUpset: 20,
  drawSwing: 20,
  lossBase: 10,
  lossFavourite: 10,
});

/** The highest ranking points the leaderboard encodes exactly (2^22 − 1, about 140k wins). */
export const MAX_RANKING_POINTS = 2 ** 22 - 1;

export interface PointsInput {
  current: number;
  outcome: Outcome;
  predictedWin: number;
  numTeams: number;
  /** Share of the other teams that finished strictly ahead (0 … 1). */
  placeBehind: number;
}

export function rankingPointsDelta(input: PointsInput): number {
  const p = Math.min(1, Math.max(0, input.predictedWin));
  const k = RANKING_POINTS;
  switch (input.outcome) {
    case "win":
      return Math.round(k.winBase + k.winUpset * (1 - p));
    case "draw":
      return Math.round(k.drawSwing * (1 / Math.max(1, input.numTeams) - p));
    case "loss":
      // `+ 0` turns Math.round's −0 into 0.
      return (
        -Math.round((k.lossBase + k.lossFavourite * p) * Math.min(1, Math.max(0, input.placeBehind))) + 0
      );
  }
}

/** The points after a match: never below 0, never above MAX_RANKING_POINTS. */
export function nextRankingPoints(input: PointsInput): number {
  return Math.min(MAX_RANKING_POINTS, Math.max(0, input.current + rankingPointsDelta(input)));
}
