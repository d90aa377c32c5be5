/**
 * The quality model shared by the search and the reported `matchScore` (see ALGORITHM.md):
 *
 *   matchScore = 1 / (1 + ((spread + IMBALANCE_WEIGHT * imbalance) / tolerance)^2)
 *
 * `spread` is max - min rating of the match's tickets, `imbalance` is max - min of the teams' mean
 * ratings (only counted when teams have several players and there are several teams).
 */

import { ArrayArena } from "./array-arena.js";
import type { QueueModel } from "./queue-model.js";
import type { SearchSettings } from "./types.js";

/** The wire contract's default, re-exported so the algorithm and the schema never disagree. */
export { DEFAULT_TARGET_WAITING_TIME } from "@arena/contracts";

/**
 * A gap between the team means costs IMBALANCE_WEIGHT times the same gap between two players: it
 * decides who is the favourite, which a spread between teammates does not.
 */
export const IMBALANCE_WEIGHT = 8;

/** The score a match of fresh tickets needs (spread + 8 · imbalance of at most about 0.37 tolerance). */
export const FRESH_REQUIRED_SCORE = 0.88;

/**
 * Where the spread starts to count less: an anchor more than TAIL_START tolerances from the median
 * rating of the request weighs its matches' spread by 1 / (1 + TAIL_SPREAD_SLOPE · (distance −
 * TAIL_START)) (`spreadWeight`). Its nearest partners are far by nature, so what its players can
 * still be given is balanced teams, and a wide even match before the target wait beats a lopsided one
 * at it (ALGORITHM.md §1).
 */
export const TAIL_START = 0.6;
export const TAIL_SPREAD_SLOPE = 2;

/**
 * Up to this many players in two or more teams of two or more, a match's best split is coarse: whom
 * it holds decides how even its teams can be. These shapes get the near-contiguous windows
 * (`near-windows.ts`) and the tail's spread weight; in larger matches the best split of any window
 * is already within a rating point or two.
 */
export const COARSE_SPLIT_MAX_PLAYERS = 6;

/** Whether the match shape's split is coarse (see COARSE_SPLIT_MAX_PLAYERS); the shape only. */
export function coarseSplit(teams: number, perTeam: number): boolean {
  return teams >= 2 && perTeam >= 2 && teams * perTeam <= COARSE_SPLIT_MAX_PLAYERS;
}

/** Shape of the relaxation: required = FRESH_REQUIRED_SCORE * (1 - wait / target)^CURVE_EXPONENT. */
export const CURVE_EXPONENT = 0.4;

/** Robust spread floor relative to the ratings' magnitude, so near-identical ratings never look far apart. */
const RELATIVE_TOLERANCE_FLOOR = 0.02;

/**
 * The weight of the spread in the cost of a match whose anchor is rated `rating`, `median` being the
 * median of its constraint group (`QueueModel.groupMedian`): 1 within TAIL_START tolerances of it,
 * falling as the anchor lies further out. Only where teams are balanced (two or more teams of two or
 * more, at most COARSE_SPLIT_MAX_PLAYERS in all): elsewhere there is no balance to trade the spread
 * for, or the split is already even, and the weight is 1.
 */
export function spreadWeight(rating: number, median: number, settings: SearchSettings): number {
  if (!coarseSplit(settings.teams, settings.perTeam)) return 1;
  const beyond = Math.abs(rating - median) / settings.tolerance - TAIL_START;
  return beyond > 0 ? 1 / (1 + TAIL_SPREAD_SLOPE * beyond) : 1;
}

/** `spreadWeight` of the anchor `unit`, measured from its constraint group's median. */
export function unitSpreadWeight(model: QueueModel, unit: number, settings: SearchSettings): number {
  return spreadWeight(model.unitMean[unit]!, model.groupMedian[model.unitGroup[unit]!]!, settings);
}

export function matchScore(spread: number, imbalance: number, tolerance: number, weight: number): number {
  const x = choiceCost(spread, imbalance, weight) / tolerance;
  const score = 1 / (1 + x * x);
  return score >= 0 && score <= 1 ? score : 0;
}

/**
 * What the search minimises among the acceptable candidates of an anchor: `weight · spread +
 * IMBALANCE_WEIGHT · imbalance` with the anchor's `spreadWeight`, the quantity `matchScore` is a
 * decreasing function of, so the lowest cost is the highest score (compared exactly, without the
 * score's rounding).
 */
export function choiceCost(spread: number, imbalance: number, weight: number): number {
  return weight * spread + IMBALANCE_WEIGHT * imbalance;
}

/** The imbalance below which a candidate of this spread has a lower cost than `bestCost`. */
export function imbalanceToBeat(bestCost: number, spread: number, weight: number): number {
  return (bestCost - weight * spread) / IMBALANCE_WEIGHT;
}

/** The best score a match with this spread can reach (a perfectly balanced one). */
export function scoreBound(spread: number, tolerance: number, weight: number): number {
  return matchScore(spread, 0, tolerance, weight);
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
export function maxSpreadFor(required: number, tolerance: number, weight: number): number {
  if (required <= 0) return Number.POSITIVE_INFINITY;
  if (required >= 1) return 0;
  return (tolerance * Math.sqrt(1 / required - 1)) / weight;
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
