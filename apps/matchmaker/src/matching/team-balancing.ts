/**
 * Splits a match's units (single tickets or parties) into `teams` teams of exactly `perTeam`
 * players, minimising the imbalance = (max team rating sum - min team rating sum) / perTeam, i.e. the
 * range of the teams' mean ratings.
 *
 * Exact (exhaustive, with the symmetry of empty teams removed) while the number of distinct
 * partitions is at most EXACT_PARTITION_LIMIT (2v2 … 7v7, 3v3v3, 2x5 …); larger matches start from
 * a snake draft (single players only) and from a greedy placement (biggest, then highest-rated unit
 * into the lowest-sum team with room), improve each by swaps of equal-size units between the highest-
 * and lowest-sum teams, and keep the better.
 */

export const EXACT_PARTITION_LIMIT = 2000;
/**
 * Rounds of improving swaps in the heuristic. Each round takes the best swap between the highest-
 * and lowest-sum teams and usually shrinks their gap by orders of magnitude, so a few rounds reach
 * what unlimited rounds would; the cap bounds the work a hostile queue can cause.
 */
const MAX_SWAP_ROUNDS = 64;
/** Up to this many (high team × low team) pairs a round tries every pair; beyond, it sorts and merges. */
const PAIR_SCAN_LIMIT = 256;

/** Number of ways to split teams*perTeam single players into unlabelled teams (as a float). */
export function partitionCount(teams: number, perTeam: number): number {
  let count = 1;
  let remaining = teams * perTeam;
  for (let t = 0; t < teams && count <= Number.MAX_SAFE_INTEGER; t++) {
    // Choose the members of the team holding the first remaining player.
    let ways = 1;
    for (let i = 0; i < perTeam - 1; i++) ways = (ways * (remaining - 1 - i)) / (i + 1);
    count *= ways;
    remaining -= perTeam;
  }
  return count;
}

function before(a: number, b: number, sizes: Int32Array, sums: Float64Array): boolean {
  if (sizes[a] !== sizes[b]) return sizes[a]! > sizes[b]!;
  return sums[a]! > sums[b]!;
}

/**
 * Team balancing with the scratch memory it reuses between calls. One instance per search (the
 * caller owns it, see SearchScratch), so no state survives at module level.
 */
export class TeamBalancer {
  private order = new Int32Array(0);
  private current = new Int32Array(0);
  private best = new Int32Array(0);
  private alternative = new Int32Array(0);
  private hiMembers = new Int32Array(0);
  private loMembers = new Int32Array(0);
  private teamSum = new Float64Array(0);
  private teamFill = new Int32Array(0);
  private readonly fourOrder = new Int32Array(4);
  // Exhaustive search over partitions.
  private bestRange = 0;
  // Two teams of singles: the combination search's state.
  private chosen = new Int32Array(0);
  private bestChosen = new Int32Array(0);
  private vals = new Float64Array(0);
  private prefix = new Float64Array(0);
  private suffix = new Float64Array(0);
  /** The sum of the combination's first k members at depth k (a double argument would be boxed per call). */
  private sumAt = new Float64Array(0);
  // The combination search's inputs: the members' rating total, how many members the first team
  // takes besides member 0, and how many members there are.
  private ratingTotal = 0;
  private toChoose = 0;
  private memberCount = 0;
  /** Tolerance of the bounds, which sum ratings in another order than the combinations do. */
  private boundSlack = 0;
  /** The smallest |team 1 - team 2| found so far, and whether the search (not the draft) found it. */
  private bestDifference = 0;
  private bestFromSearch = false;

  /**
   * Grows the scratch arrays. Everything is allocated before anything is replaced, so a failed
   * allocation (an absurd size) leaves the previous, consistent arrays in place.
   */
  private ensure(units: number, teams: number): void {
    if (units > this.order.length) {
      const grown = Array.from({ length: 6 }, () => new Int32Array(units));
      this.order = grown[0]!;
      this.current = grown[1]!;
      this.best = grown[2]!;
      this.alternative = grown[3]!;
      this.hiMembers = grown[4]!;
      this.loMembers = grown[5]!;
    }
    if (teams > this.teamSum.length) {
      const sums = new Float64Array(teams);
      const fills = new Int32Array(teams);
      this.teamSum = sums;
      this.teamFill = fills;
    }
  }

  /**
   * Fills `teamOf[i]` (0-based team) for units `0..count-1` of `sizes`/`sums` and returns the
   * imbalance, or -1 when the units cannot be packed into the teams. A caller that only needs the
   * imbalance when it is below `beat` says so: for two teams of single players the search then
   * starts from that bound and returns Infinity (with `teamOf` some valid split) when no split is
   * below it. A split that is below it comes out exactly as without `beat`.
   */
  balance(
    count: number,
    sizes: Int32Array,
    sums: Float64Array,
    teams: number,
    perTeam: number,
    teamOf: Int32Array,
    beat = Number.POSITIVE_INFINITY,
  ): number {
    if (
      teams === 2 &&
      perTeam === 2 &&
      count === 4 &&
      sizes[0] === 1 &&
      sizes[1] === 1 &&
      sizes[2] === 1 &&
      sizes[3] === 1
    ) {
      return this.twoVsTwoOfSingles(sums, teamOf);
    }
    this.ensure(count, teams);
    if (teams === 1) {
      for (let i = 0; i < count; i++) teamOf[i] = 0;
      return 0;
    }
    // Biggest units first, then highest rating sum: good early solutions and fewer dead ends. The
    // searches pass windows of single players in rating order, ascending: reverse them (equal sums
    // keeping their order, as the stable insertion sort of `sortUnits` would) instead of sorting.
    let ascending = true;
    for (let i = 1; i < count && ascending; i++) {
      ascending = sizes[i] === sizes[0] && sums[i]! >= sums[i - 1]!;
    }
    if (ascending) {
      let k = 0;
      for (let end = count; end > 0; ) {
        let start = end - 1;
        while (start > 0 && sums[start - 1] === sums[end - 1]) start--;
        for (let i = start; i < end; i++) this.order[k++] = i;
        end = start;
      }
    } else {
      this.sortUnits(count, sizes, sums);
    }
    this.teamSum.fill(0, 0, teams);
    this.teamFill.fill(0, 0, teams);
    const exactSplit = partitionCount(teams, perTeam) <= EXACT_PARTITION_LIMIT;
    const range = !exactSplit
      ? this.heuristic(count, sizes, sums, teams, perTeam)
      : teams === 2 && count === 2 * perTeam
        ? this.exactTwoTeamsOfSingles(count, sums, perTeam, beat)
        : this.exact(count, sizes, sums, teams, perTeam);
    if (range < 0) return -1;
    for (let i = 0; i < count; i++) teamOf[this.order[i]!] = this.best[i]!;
    return range / perTeam;
  }

  /** Stable insertion sort of the units into `order`: biggest first, then highest rating sum. */
  private sortUnits(count: number, sizes: Int32Array, sums: Float64Array): void {
    for (let i = 0; i < count; i++) this.order[i] = i;
    for (let i = 1; i < count; i++) {
      const u = this.order[i]!;
      let j = i - 1;
      while (j >= 0 && before(u, this.order[j]!, sizes, sums)) {
        this.order[j + 1] = this.order[j]!;
        j--;
      }
      this.order[j + 1] = u;
    }
  }

  /**
   * 2v2 of single players, the most common match, in constant time. With ratings sorted high to low
   * (a ≥ b ≥ c ≥ d), {a, d} against {b, c} is optimal; the loop below picks exactly what
   * `exactTwoTeamsOfSingles` would (the first of {a,b}, {a,c}, {a,d} whose difference is as small),
   * including its tie-breaking and floating-point sums, without its set-up cost.
   */
  private twoVsTwoOfSingles(sums: Float64Array, teamOf: Int32Array): number {
    // Stable insertion sort of the four by rating, highest first (as balanceTeams' own sort does).
    const o = this.fourOrder;
    for (let i = 0; i < 4; i++) {
      let j = i - 1;
      while (j >= 0 && sums[i]! > sums[o[j]!]!) {
        o[j + 1] = o[j]!;
        j--;
      }
      o[j + 1] = i;
    }
    const o0 = o[0]!;
    const o1 = o[1]!;
    const o2 = o[2]!;
    const o3 = o[3]!;
    const v0 = sums[o0]!;
    const v1 = sums[o1]!;
    const v2 = sums[o2]!;
    const v3 = sums[o3]!;
    const total = v0 + v1 + v2 + v3;
    let bestDiff = Math.abs(total - 2 * (v0 + v3));
    let partner = o3;
    let fromSearch = false;
    // The partners in order b, c, d (no array literals: this runs once per 2v2 match).
    for (let k = 0; k < 3; k++) {
      const value = k === 0 ? v1 : k === 1 ? v2 : v3;
      const diff = Math.abs(total - 2 * (v0 + value));
      if (diff < bestDiff || (diff === bestDiff && !fromSearch)) {
        bestDiff = diff;
        fromSearch = true;
        partner = k === 0 ? o1 : k === 1 ? o2 : o3;
        if (diff === 0) break;
      }
    }
    teamOf[0] = 1;
    teamOf[1] = 1;
    teamOf[2] = 1;
    teamOf[3] = 1;
    teamOf[o0] = 0;
    teamOf[partner] = 0;
    return bestDiff / 2;
  }

  /**
   * Two teams of single players: the team of the best player takes perTeam - 1 of the others. A
   * depth-first search over those combinations in lexicographic order (ratings sorted high to low),
   * with each combination's sum accumulated in index order, so its value does not depend on the path.
   * It starts from the ABBA draft's split and cuts every subtree whose sums (bounded by the largest and
   * smallest remaining ratings) cannot come within the best difference so far. It returns the
   * lexicographically first combination with the smallest difference, as visiting all of them would.
   */
  private exactTwoTeamsOfSingles(count: number, sums: Float64Array, perTeam: number, beat: number): number {
    const pick = perTeam - 1;
    if (this.chosen.length < pick + 1 || this.vals.length < count + 1) {
      this.chosen = new Int32Array(2 * (pick + 1));
      this.bestChosen = new Int32Array(2 * (pick + 1));
      this.vals = new Float64Array(2 * (count + 1));
      this.prefix = new Float64Array(2 * (count + 1));
      this.suffix = new Float64Array(2 * (count + 1));
      this.sumAt = new Float64Array(2 * (pick + 1));
    }
    let total = 0;
    this.prefix[0] = 0;
    for (let i = 0; i < count; i++) {
      const v = sums[this.order[i]!]!;
      this.vals[i] = v;
      total += v;
      this.prefix[i + 1] = this.prefix[i]! + v;
    }
    this.suffix[0] = 0;
    for (let r = 1; r <= pick; r++) this.suffix[r] = this.suffix[r - 1]! + this.vals[count - r]!;
    // The ABBA draft (indices 0, 3, 4, 7, 8, … in the first team) is close to the optimum.
    let sum = this.vals[0]!;
    for (let i = 1, k = 0; i < count; i++) {
      if ((i & 3) === 0 || (i & 3) === 3) {
        this.bestChosen[k++] = i;
        sum += this.vals[i]!;
      }
    }
    this.ratingTotal = total;
    this.toChoose = pick;
    this.memberCount = count;
    this.bestDifference = Math.abs(total - 2 * sum);
    this.bestFromSearch = false;
    // Covers the rounding of bounds computed from differently ordered sums.
    this.boundSlack = 1e-9 * (Math.abs(total) + 1);
    // Only a difference below the caller's bound matters (with a margin, so that no split the
    // caller would take is cut): start from it when the draft is not below it. The search keeps
    // every subtree that can reach the optimum, so an optimum below it is found as before.
    const cap = beat * perTeam * (1 + 1e-9) + this.boundSlack;
    const capped = this.bestDifference > cap;
    if (capped) this.bestDifference = cap;
    this.sumAt[0] = this.vals[0]!;
    if (pick > 0) this.visit(1, 0);
    if (capped && !this.bestFromSearch) this.bestDifference = Number.POSITIVE_INFINITY;
    for (let i = 0; i < count; i++) this.best[i] = 1;
    this.best[0] = 0;
    for (let k = 0; k < pick; k++) this.best[this.bestChosen[k]!] = 0;
    return this.bestDifference;
  }

  /** Chooses member `k` of the combination from indices `start…`, the sum so far being `sumAt[k]`. */
  private visit(start: number, k: number): boolean {
    const sum = this.sumAt[k]!;
    const r = this.toChoose - k;
    const total = this.ratingTotal;
    const last = this.memberCount - r;
    for (let i = start; i <= last; i++) {
      const v = this.vals[i]!;
      // Largest reachable sum: this and the next r - 1 ratings; smallest: this and the last r - 1.
      const high = sum + (this.prefix[i + r]! - this.prefix[i]!);
      if (total - 2 * high > this.bestDifference + this.boundSlack) return false; // later i only lower it
      const low = sum + v + this.suffix[r - 1]!;
      if (2 * low - total > this.bestDifference + this.boundSlack) continue;
      const next = sum + v;
      this.chosen[k] = i;
      if (r === 1) {
        const diff = Math.abs(total - 2 * next);
        if (diff < this.bestDifference || (diff === this.bestDifference && !this.bestFromSearch)) {
          this.bestDifference = diff;
          this.bestFromSearch = true;
          for (let j = 0; j < this.toChoose; j++) this.bestChosen[j] = this.chosen[j]!;
          if (diff === 0) return true;
        }
      } else {
        this.sumAt[k + 1] = next;
        if (this.visit(i + 1, k + 1)) return true;
      }
    }
    return false;
  }

  private exact(
    count: number,
    sizes: Int32Array,
    sums: Float64Array,
    teams: number,
    perTeam: number,
  ): number {
    this.bestRange = Number.POSITIVE_INFINITY;
    this.search(0, count, sizes, sums, teams, perTeam);
    return this.bestRange === Number.POSITIVE_INFINITY ? -1 : this.bestRange;
  }

  private search(
    depth: number,
    count: number,
    sizes: Int32Array,
    sums: Float64Array,
    teams: number,
    perTeam: number,
  ): void {
    if (depth === count) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let t = 0; t < teams; t++) {
        const s = this.teamSum[t]!;
        if (s < min) min = s;
        if (s > max) max = s;
      }
      const range = max - min;
      if (range < this.bestRange) {
        this.bestRange = range;
        for (let i = 0; i < count; i++) this.best[i] = this.current[i]!;
      }
      return;
    }
    const u = this.order[depth]!;
    const size = sizes[u]!;
    const sum = sums[u]!;
    for (let t = 0; t < teams; t++) {
      const fill = this.teamFill[t]!;
      if (fill + size > perTeam) continue;
      this.teamFill[t] = fill + size;
      this.teamSum[t] = this.teamSum[t]! + sum;
      this.current[depth] = t;
      this.search(depth + 1, count, sizes, sums, teams, perTeam);
      this.teamFill[t] = fill;
      this.teamSum[t] = this.teamSum[t]! - sum;
      if (this.bestRange === 0) return;
      // Empty teams are interchangeable: trying the first one is enough.
      if (fill === 0) return;
    }
  }

  private heuristic(
    count: number,
    sizes: Int32Array,
    sums: Float64Array,
    teams: number,
    perTeam: number,
  ): number {
    let singles = true;
    for (let i = 0; i < count; i++) if (sizes[i] !== 1) singles = false;
    // Two starts, each improved by swaps: the snake draft (single players only) and greedy placement.
    let snakeRange = Number.POSITIVE_INFINITY;
    if (singles) {
      for (let i = 0; i < count; i++) {
        const round = Math.floor(i / teams);
        const slot = i % teams;
        this.best[i] = round % 2 === 0 ? slot : teams - 1 - slot;
      }
      snakeRange = this.improve(count, sizes, sums, teams);
      this.alternative.set(this.best.subarray(0, count));
    }
    this.teamFill.fill(0, 0, teams);
    this.teamSum.fill(0, 0, teams);
    if (!this.greedyPlace(count, sizes, sums, teams, perTeam, true)) {
      this.teamSum.fill(0, 0, teams);
      this.teamFill.fill(0, 0, teams);
      if (!this.greedyPlace(count, sizes, sums, teams, perTeam, false)) {
        if (!singles) return -1;
        this.best.set(this.alternative.subarray(0, count));
        return snakeRange;
      }
    }
    const greedyRange = this.improve(count, sizes, sums, teams);
    if (greedyRange <= snakeRange) return greedyRange;
    this.best.set(this.alternative.subarray(0, count));
    return snakeRange;
  }

  /**
   * Improving swaps of equal-size units between the highest- and lowest-sum teams of the assignment in
   * `best`; each strictly lowers the sum of squared team sums, so the loop ends; the cap bounds the work.
   * The best swap moves a difference `d` as close to half the gap as possible: with both teams' units
   * sorted by (size, sum), one merge-like pass finds it, so a round costs O(u log u) for u units in the
   * two teams rather than O(u²) (a 2 × 100 match once spent seconds here per request).
   * Returns the final range of team sums.
   */
  private improve(count: number, sizes: Int32Array, sums: Float64Array, teams: number): number {
    this.teamSum.fill(0, 0, teams);
    for (let i = 0; i < count; i++)
      this.teamSum[this.best[i]!] = this.teamSum[this.best[i]!]! + sums[this.order[i]!]!;
    const bySizeThenSum = (a: number, b: number) =>
      sizes[this.order[a]!]! - sizes[this.order[b]!]! ||
      sums[this.order[a]!]! - sums[this.order[b]!]! ||
      a - b;
    for (let iteration = 0; iteration < MAX_SWAP_ROUNDS; iteration++) {
      let hi = 0;
      let lo = 0;
      for (let t = 1; t < teams; t++) {
        if (this.teamSum[t]! > this.teamSum[hi]!) hi = t;
        if (this.teamSum[t]! < this.teamSum[lo]!) lo = t;
      }
      const diff = this.teamSum[hi]! - this.teamSum[lo]!;
      if (!(diff > 0)) break;
      let nHi = 0;
      let nLo = 0;
      for (let i = 0; i < count; i++) {
        if (this.best[i] === hi) this.hiMembers[nHi++] = i;
        else if (this.best[i] === lo) this.loMembers[nLo++] = i;
      }
      let bestI = -1;
      let bestJ = -1;
      let bestAfter = diff;
      if (nHi * nLo <= PAIR_SCAN_LIMIT) {
        // Small teams: every pair, in index order (the first best pair wins ties).
        for (let x = 0; x < nHi; x++) {
          const i = this.hiMembers[x]!;
          const ui = this.order[i]!;
          for (let y = 0; y < nLo; y++) {
            const jj = this.loMembers[y]!;
            const uj = this.order[jj]!;
            if (sizes[ui] !== sizes[uj]) continue;
            const d = sums[ui]! - sums[uj]!;
            if (!(d > 0 && d < diff)) continue;
            const after = Math.abs(diff - 2 * d);
            if (after < bestAfter) {
              bestAfter = after;
              bestI = i;
              bestJ = jj;
            }
          }
        }
      } else {
        const hiSorted = this.hiMembers.subarray(0, nHi).sort(bySizeThenSum);
        const loSorted = this.loMembers.subarray(0, nLo).sort(bySizeThenSum);
        // For each unit i of the high team, the low-team unit j of its size whose sum is nearest to
        // sum(i) - diff/2; j only moves forward as sum(i) grows.
        let j = 0;
        for (let a = 0; a < nHi; a++) {
          const i = hiSorted[a]!;
          const size = sizes[this.order[i]!]!;
          const target = sums[this.order[i]!]! - diff / 2;
          while (
            j < nLo &&
            (sizes[this.order[loSorted[j]!]!]! < size ||
              (sizes[this.order[loSorted[j]!]!]! === size && sums[this.order[loSorted[j]!]!]! <= target))
          )
            j++;
          // Candidates: the first unit above the target, and the first of the run just at or below it.
          for (let side = 0; side < 2; side++) {
            let k = side === 0 ? j : j - 1;
            if (k < 0 || k >= nLo || sizes[this.order[loSorted[k]!]!] !== size) continue;
            if (side === 1)
              while (
                k > 0 &&
                sums[this.order[loSorted[k - 1]!]!] === sums[this.order[loSorted[k]!]!] &&
                sizes[this.order[loSorted[k - 1]!]!] === size
              )
                k--;
            const jj = loSorted[k]!;
            const d = sums[this.order[i]!]! - sums[this.order[jj]!]!;
            if (!(d > 0 && d < diff)) continue;
            const after = Math.abs(diff - 2 * d);
            if (
              after < bestAfter ||
              (after === bestAfter && bestI >= 0 && (i < bestI || (i === bestI && jj < bestJ)))
            ) {
              bestAfter = after;
              bestI = i;
              bestJ = jj;
            }
          }
        }
      }
      if (bestI < 0) break;
      const d = sums[this.order[bestI]!]! - sums[this.order[bestJ]!]!;
      this.best[bestI] = lo;
      this.best[bestJ] = hi;
      this.teamSum[hi] = this.teamSum[hi]! - d;
      this.teamSum[lo] = this.teamSum[lo]! + d;
    }
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < teams; t++) {
      if (this.teamSum[t]! < min) min = this.teamSum[t]!;
      if (this.teamSum[t]! > max) max = this.teamSum[t]!;
    }
    return max - min;
  }

  /**
   * Places units in `order`: by rating (lowest-sum team with room) or, as the packing fallback, by
   * room (fullest team the unit still fits in). Returns false when a unit finds no team.
   */
  private greedyPlace(
    count: number,
    sizes: Int32Array,
    sums: Float64Array,
    teams: number,
    perTeam: number,
    byRating: boolean,
  ): boolean {
    for (let i = 0; i < count; i++) {
      const u = this.order[i]!;
      const size = sizes[u]!;
      let target = -1;
      for (let t = 0; t < teams; t++) {
        if (this.teamFill[t]! + size > perTeam) continue;
        if (target < 0) target = t;
        else if (
          byRating ? this.teamSum[t]! < this.teamSum[target]! : this.teamFill[t]! > this.teamFill[target]!
        )
          target = t;
      }
      if (target < 0) return false;
      this.best[i] = target;
      this.teamFill[target] = this.teamFill[target]! + size;
      this.teamSum[target] = this.teamSum[target]! + sums[u]!;
    }
    return true;
  }
}

/** Balances with a fresh balancer; for callers outside a search (tests, explanations of one ticket). */
export function balanceTeams(
  count: number,
  sizes: Int32Array,
  sums: Float64Array,
  teams: number,
  perTeam: number,
  teamOf: Int32Array,
): number {
  return new TeamBalancer().balance(count, sizes, sums, teams, perTeam, teamOf);
}
