import { MAX_RANKING_POINTS } from "../ratings/ranking-points.js";

/**
 * One leaderboard score (a Redis sorted-set double) carries the ranking points and when they were
 * reached, so that ties go to whoever reached the points first:
 *
 *   score = points × 2^31 + (2^31 − 1 − seconds since 2020-01-01 UTC)
 *
 * Exact within the bounds below (the largest score is below 2^53, the last integer a double holds
 * exactly): points 0 … 4,194,303 (2^22 − 1) and times from 2020-01-01 to 2088-01-19 (2^31 s) at
 * one-second resolution; times outside are clamped to the range. Two players with the same points
 * reached in the same second share a score, and Redis orders them by player id (the one sorting
 * last comes first in a descending read).
 */
export const SCORE_EPOCH_MS = Date.UTC(2020, 0, 1);
export const TIME_SPAN = 2 ** 31;
export const MAX_POINTS = MAX_RANKING_POINTS;

export function encodeScore(points: number, reachedAt: Date): number {
  const p = Math.min(MAX_POINTS, Math.max(0, Math.trunc(points)));
  const seconds = Math.min(
    TIME_SPAN - 1,
    Math.max(0, Math.floor((reachedAt.getTime() - SCORE_EPOCH_MS) / 1000)),
  );
  return p * TIME_SPAN + (TIME_SPAN - 1 - seconds);
}

export function decodeScore(score: number): { points: number; reachedAt: Date } {
  const points = Math.floor(score / TIME_SPAN);
  const seconds = TIME_SPAN - 1 - (score - points * TIME_SPAN);
  return { points, reachedAt: new Date(SCORE_EPOCH_MS + seconds * 1000) };
}

/** Only the points, for answers: cheaper than `decodeScore`. */
export function pointsOfScore(score: number): number {
  return Math.floor(score / TIME_SPAN);
}
