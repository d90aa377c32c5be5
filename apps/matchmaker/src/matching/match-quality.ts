/**
 * The quality model shared by the search and the reported `matchScore` (see ALGORITHM.md):
 *
 *   matchScore = 1 / (1 + ((spread + IMBALANCE_WEIGHT * imbalance) / tolerance)^2)
 *
 * `spread` is max - min rating of the match's tickets, `imbalance` is max - min of the teams' mean
 * ratings (only counted when teams have several players and there are several teams).
 */

import { ArrayArena } from "./array-arena.js";

/** The wire contract's default, re-exported so the algorithm and the schema never disagree. */
export { DEFAULT_TARGET_WAITING_TIME } from "@arena/contracts";

/**
 * A gap between the team means costs IMBALANCE_WEIGHT times the same gap between two players: it
 * decides who is the favourite, which a spread between teammates does not.
 */
export const IMBALANCE_WEIGHT = 8;

/** The score a match of fresh tickets needs (spread + 8 · imbalance of at most about half a tolerance). */
export const FRESH_REQUIRED_SCORE = 0.79;

/** Shape of the relaxation: required = FRESH_REQUIRED_SCORE * (1 - wait / target)^CURVE_EXPONENT. */
export const CURVE_EXPONENT = 0.4;

/** Robust spread floor relative to the ratings' magnitude, so near-identical ratings never look far apart. */
const RELATIVE_TOLERANCE_FLOOR = 0.02;

export function matchScore(spread: number, imbalance: number, tolerance: number): number {
  const x = choiceCost(spread, imbalance) / tolerance;
  const score = 1 / (1 + x * x);
  return score >= 0 && score <= 1 ? score : 0;
}

/**
 * What the search minimises among the acceptable candidates of an anchor: `spread + IMBALANCE_WEIGHT ·
 * imbalance`, the quantity `matchScore` is a decreasing function of, so the lowest cost is the highest
 * score (compared exactly, without the score's rounding).
 */
export function choiceCost(spread: number, imbalance: number): number {
  return spread + IMBALANCE_WEIGHT * imbalance;
}

/** The imbalance below which a candidate of this spread has a lower cost than `bestCost`. */
export function imbalanceToBeat(bestCost: number, spread: number): number {
  return (bestCost - spread) / IMBALANCE_WEIGHT;
}

/** The best score a match with this spread can reach (a perfectly balanced one). */
export function scoreBound(spread: number, tolerance: number): number {
  return matchScore(spread, 0, tolerance);
}

/**
 * Required score for a match whose oldest ticket waited `wait` seconds; 0 means "anything
 * compatible". `expired` is true once the oldest ticket reached `maxWaitingTime`.
 */
export function requiredScore(wait: number, targetWaitingTime: number, expired: boolean): number {
  if (expired || wait >= targetWaitingTime) return 0;
  const remaining = 1 - wait / targetWaitingTime;
  return FRESH_REQUIRED_SCORE * remaining ** CURVE_EXPONENT;
}

/** Largest spread that can still satisfy `required` (Infinity when anything goes). */
export function maxSpreadFor(required: number, tolerance: number): number {
  if (required <= 0) return Number.POSITIVE_INFINITY;
  if (required >= 1) return 0;
  return tolerance * Math.sqrt(1 / required - 1);
}

/**
 * Default tolerance: a robust standard deviation of the request's ratings (interquartile range /
 * 1.349, falling back to the standard deviation when more than half the ratings are equal), at least
 * 2 % of the median's magnitude, and never 0.
 */
export function defaultRatingTolerance(ratings: Float64Array, arrays: ArrayArena = new ArrayArena()): number {
  const n = ratings.length;
  if (n === 0) return 1;
  const work = arrays.float64(n);
  work.set(ratings);
  const q1 = quantile(work, 0.25);
  const median = quantile(work, 0.5);
  const q3 = quantile(work, 0.75);
  let spread = (q3 - q1) / 1.349;
  if (!(spread > 0)) spread = standardDeviation(ratings);
  const floor = RELATIVE_TOLERANCE_FLOOR * Math.abs(median);
  let tolerance = Math.max(spread, floor);
  if (!(tolerance > 0)) tolerance = 1;
  return Number.isFinite(tolerance) ? tolerance : Number.MAX_VALUE;
}

function standardDeviation(values: Float64Array): number {
  let mean = 0;
  for (let i = 0; i < values.length; i++) mean += values[i]!;
  mean /= values.length;
  let sq = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i]! - mean;
    sq += d * d;
  }
  return Math.sqrt(sq / values.length);
}

/** Linear-interpolation quantile (type 7); reorders `work` (quickselect, O(n) on average). */
function quantile(work: Float64Array, q: number): number {
  const h = (work.length - 1) * q;
  const lo = Math.floor(h);
  const low = select(work, lo);
  if (h === lo) return low;
  // After selecting `lo`, the next order statistic is the minimum of the upper part.
  let next = Number.POSITIVE_INFINITY;
  for (let i = lo + 1; i < work.length; i++) if (work[i]! < next) next = work[i]!;
  return low + (h - lo) * (next - low);
}

/** Places the k-th smallest value at index k, smaller ones before it, larger after (Hoare). */
function select(a: Float64Array, k: number): number {
  let left = 0;
  let right = a.length - 1;
  while (right > left) {
    const pivot = a[(left + right) >>> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return a[k]!;
}
