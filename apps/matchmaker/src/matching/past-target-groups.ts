/**
 * Groups for an anchor past its target wait (ALGORITHM.md §4): once the anchor accepts any compatible
 * match, 2v2 also tries the anchor with any three free single tickets among its nearest on both
 * sides, not only the windows of its nearest neighbours. A player far from the crowd past the target
 * otherwise takes neighbours that all sit on one side of its rating, a group no split can balance;
 * an even split needs a partner on the far side (sorted a < b < c < d split as a + d against b + c).
 * Shared by both searches, so they make the same choices; which shapes get it depends on the shape
 * only.
 */
import { choiceCost, matchScore } from "./match-quality.js";

/** How many free tickets, nearest first, the anchor's groups are drawn from (C(12, 3) = 220 groups at most). */
export const PAST_TARGET_POOL = 12;

/** Whether the match shape gets these groups: two teams of two, where the best split has a closed form. */
export function pastTargetGroupsApply(teams: number, perTeam: number): boolean {
  return teams === 2 && perTeam === 2;
}

export class PastTargetGroups {
  private readonly pool = new Int32Array(PAST_TARGET_POOL);
  private readonly poolMask = new Int32Array(PAST_TARGET_POOL);
  /** Each pool member's rating minus the anchor's. */
  private readonly poolOffset = new Float64Array(PAST_TARGET_POOL);
  private readonly quad = new Int32Array(4);
  /** The score of the group the last `evaluate` that improved chose. */
  score = -1;

  /**
   * The best group of the anchor `a` and three of its pool whose cost is below `bestCost`, written to
   * `bestWin` (positions, in rating order) and `bestTeam`; returns its cost, or `bestCost` if none.
   * The pool is the free units nearest to the anchor's rating on both sides (the nearer first, the
   * lower on a tie), at most `PAST_TARGET_POOL` that `compatible` accepts (its server bits shared with
   * the anchor, 0 for none), among at most `scanCap` looked at, and only closer than `bestCost` (a
   * group's cost is at least its weighted spread, `weight` the anchor's `spreadWeight`). Positions are
   * in rating order, `mean` their ratings.
   */
  evaluate(
    a: number,
    prev: Int32Array,
    next: Int32Array,
    mean: Float64Array,
    compatible: (p: number) => number,
    scanCap: number,
    tolerance: number,
    weight: number,
    bestCost: number,
    bestWin: Int32Array,
    bestTeam: Int32Array,
  ): number {
    const { pool, poolMask, poolOffset, quad } = this;
    const meanA = mean[a]!;
    // Distances beyond `reach` cost at least `bestCost` in weighted spread alone.
    const reach = bestCost / weight;
    let size = 0;
    let u = prev[a]!;
    let v = next[a]!;
    for (let steps = 0; size < PAST_TARGET_POOL && steps < scanCap && (u >= 0 || v >= 0); steps++) {
      const du = u >= 0 ? meanA - mean[u]! : Number.POSITIVE_INFINITY;
      const dv = v >= 0 ? mean[v]! - meanA : Number.POSITIVE_INFINITY;
      if (Math.min(du, dv) >= reach) break;
      let take: number;
      if (du <= dv) {
        take = u;
        u = prev[u]!;
      } else {
        take = v;
        v = next[v]!;
      }
      const bits = compatible(take);
      if (bits === 0) continue;
      pool[size] = take;
      poolOffset[size] = mean[take]! - meanA;
      poolMask[size++] = bits;
    }
    let best = bestCost;
    // In units of the spread: a group whose spread reaches `limit` costs at least the best.
    let limit = best / weight;
    // The pool is nearest first, so a group's spread is at least its last member's distance: once
    // that reaches the limit, no later member can do better.
    for (let i = 0; i < size; i++) {
      const oi = poolOffset[i]!;
      if (Math.abs(oi) >= limit) break;
      for (let j = i + 1; j < size; j++) {
        const oj = poolOffset[j]!;
        if (Math.abs(oj) >= limit) break;
        const shared = poolMask[i]! & poolMask[j]!;
        if (shared === 0) continue;
        const hiIJ = Math.max(0, oi, oj);
        const loIJ = Math.min(0, oi, oj);
        if (hiIJ - loIJ >= limit) continue;
        for (let k = j + 1; k < size; k++) {
          const ok = poolOffset[k]!;
          if (Math.abs(ok) >= limit) break;
          if ((shared & poolMask[k]!) === 0) continue;
          // The spread from the offsets first (the anchor's is 0); only a group that can still
          // beat the best is sorted and split.
          if (Math.max(hiIJ, ok) - Math.min(loIJ, ok) >= limit) continue;
          // The four positions in rating order (positions are in rating order).
          sortFour(quad, a, pool[i]!, pool[j]!, pool[k]!);
          const x0 = mean[quad[0]!]!;
          const x1 = mean[quad[1]!]!;
          const x2 = mean[quad[2]!]!;
          const x3 = mean[quad[3]!]!;
          const spread = x3 - x0;
          if (spread >= limit) continue;
          const imbalance = Math.abs(x0 + x3 - x1 - x2) / 2;
          const cost = choiceCost(spread, imbalance, weight);
          if (cost >= best) continue;
          best = cost;
          limit = best / weight;
          this.score = matchScore(spread, imbalance, tolerance, weight);
          for (let q = 0; q < 4; q++) bestWin[q] = quad[q]!;
          bestTeam[0] = 0;
          bestTeam[1] = 1;
          bestTeam[2] = 1;
          bestTeam[3] = 0;
        }
      }
    }
    return best;
  }
}

/** Writes the four distinct positions into `out` in increasing order. */
function sortFour(out: Int32Array, p0: number, p1: number, p2: number, p3: number): void {
  out[0] = p0;
  out[1] = p1;
  out[2] = p2;
  out[3] = p3;
  for (let i = 1; i < 4; i++) {
    const x = out[i]!;
    let j = i - 1;
    while (j >= 0 && out[j]! > x) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = x;
  }
}
