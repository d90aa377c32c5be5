/**
 * Near-contiguous windows (ALGORITHM.md §4): besides the contiguous windows of one match's worth of
 * players around the anchor, both searches try the windows of one player more with one player
 * inside them (neither end, never the anchor) left out. The spread is the wider window's, but the
 * choice of whom to leave out often balances the teams far better. Only for windows of single
 * tickets, and the shapes whose split is coarse (`coarseSplit`: two or more teams of two or more, at
 * most six players), where balancing a window is cheap; shared by both searches, so they make the
 * same choices.
 */
import {
  choiceCost,
  coarseSplit,
  imbalanceToBeat,
  matchScore,
  requiredScore,
  scoreBound,
} from "./match-quality.js";
import type { TeamBalancer } from "./team-balancing.js";
import type { SearchSettings } from "./types.js";

/**
 * Whether the match shape gets near-contiguous windows. It depends on
 * the shape only, never on other tickets in the request, so a ticket that can never be placed (say a
 * party too large) changes nothing for the rest; a window holding a party is simply not widened.
 */
export function nearWindowsApply(teams: number, perTeam: number): boolean {
  return coarseSplit(teams, perTeam);
}

export class NearWindows {
  /** The wider window (one player more than a match), in rating order; the caller fills it. */
  readonly full: Int32Array;
  private readonly sub: Int32Array;
  private readonly subSize: Int32Array;
  private readonly subSum: Float64Array;
  private readonly subTeam: Int32Array;
  /** The score of the subset the last `evaluate` that improved chose. */
  score = -1;

  /** For matches of up to `capacity` players. */
  constructor(capacity: number) {
    this.full = new Int32Array(capacity + 1);
    this.sub = new Int32Array(capacity);
    this.subSize = new Int32Array(capacity).fill(1);
    this.subSum = new Float64Array(capacity);
    this.subTeam = new Int32Array(capacity);
  }

  /**
   * `full` holds `matchSize + 1` positions. Tries leaving out each player strictly inside it other than the one at `anchorIndex`. The best
   * acceptable subset (its score at least the requirement of its own oldest ticket) whose cost is
   * below `bestCost` is written to `bestWin`/`bestTeam`; returns its cost, or `bestCost` if none.
   * `anchorRequired` is the anchor's own requirement (a subset's is lower only when it holds an older
   * ticket). `rating` and `oldest` are indexed by the positions in `full`; `spread` is `full`'s, and
   * `weight` the anchor's `spreadWeight`.
   */
  evaluate(
    matchSize: number,
    anchorIndex: number,
    anchorRequired: number,
    rating: Float64Array,
    oldest: Float64Array,
    spread: number,
    weight: number,
    settings: SearchSettings,
    balancer: TeamBalancer,
    bestCost: number,
    bestWin: Int32Array,
    bestTeam: Int32Array,
  ): number {
    const { full, sub, subSize, subSum, subTeam } = this;
    const { teams, perTeam, now, targetWaitingTime, maxWaitingTime, tolerance } = settings;
    const bound = scoreBound(spread, tolerance, weight);
    const anchorOld = oldest[full[anchorIndex]!]!;
    let best = bestCost;
    const twoVsTwo = teams === 2 && perTeam === 2;
    for (let d = 1; d < matchSize; d++) {
      if (d === anchorIndex) continue;
      if (twoVsTwo) {
        // `full` is in rating order, so the best split of the other four pairs the outer two
        // against the inner two: a cheap floor that skips most subsets before any balancing. It
        // only filters (with a margin for rounding); the balancer's figure decides.
        const y0 = rating[full[d === 0 ? 1 : 0]!]!;
        const y3 = rating[full[d === 4 ? 3 : 4]!]!;
        const y1 = rating[full[d <= 1 ? 2 : 1]!]!;
        const y2 = rating[full[d <= 2 ? 3 : 2]!]!;
        const approx = choiceCost(spread, Math.abs(y0 + y3 - y1 - y2) / 2, weight);
        if (approx - 1e-9 * (Math.abs(approx) + 1) >= best) continue;
      }
      let n = 0;
      let old = Number.POSITIVE_INFINITY;
      for (let i = 0; i <= matchSize; i++) {
        if (i === d) continue;
        const u = full[i]!;
        sub[n] = u;
        subSum[n++] = rating[u]!;
        if (oldest[u]! < old) old = oldest[u]!;
      }
      let required = anchorRequired;
      if (old < anchorOld && anchorRequired > 0) {
        const wait = Math.max(now - old, 0);
        required = requiredScore(wait, targetWaitingTime, wait >= maxWaitingTime);
      }
      if (bound < required) continue;
      const imbalance = balancer.balance(
        matchSize,
        subSize,
        subSum,
        teams,
        perTeam,
        subTeam,
        imbalanceToBeat(best, spread, weight),
      );
      if (imbalance < 0) continue;
      const score = matchScore(spread, imbalance, tolerance, weight);
      const cost = choiceCost(spread, imbalance, weight);
      if (cost >= best) continue;
      if (score < required) continue;
      best = cost;
      this.score = score;
      for (let i = 0; i < matchSize; i++) {
        bestWin[i] = sub[i]!;
        bestTeam[i] = subTeam[i]!;
      }
    }
    return best;
  }
}
