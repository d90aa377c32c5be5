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

let order = new Int32Array(0);
let current = new Int32Array(0);
let best = new Int32Array(0);
let alternative = new Int32Array(0);
let hiMembers = new Int32Array(0);
let loMembers = new Int32Array(0);
let teamSum = new Float64Array(0);
let teamFill = new Int32Array(0);

/**
 * Grows the scratch arrays. Everything is allocated before anything is replaced, so a failed
 * allocation (an absurd size) leaves the previous, consistent arrays in place.
 */
function ensure(units: number, teams: number): void {
  if (units > order.length) {
    const grown = Array.from({ length: 6 }, () => new Int32Array(units));
    order = grown[0]!;
    current = grown[1]!;
    best = grown[2]!;
    alternative = grown[3]!;
    hiMembers = grown[4]!;
    loMembers = grown[5]!;
  }
  if (teams > teamSum.length) {
    const sums = new Float64Array(teams);
    const fills = new Int32Array(teams);
    teamSum = sums;
    teamFill = fills;
  }
}

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

/**
 * Fills `teamOf[i]` (0-based team) for units `0..count-1` of `sizes`/`sums` and returns the
 * imbalance, or -1 when the units cannot be packed into the teams.
 */
export function balanceTeams(
  count: number,
  sizes: Int32Array,
  sums: Float64Array,
  teams: number,
  perTeam: number,
  teamOf: Int32Array,
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
    return twoVsTwoOfSingles(sums, teamOf);
  }
  ensure(count, teams);
  if (teams === 1) {
    for (let i = 0; i < count; i++) teamOf[i] = 0;
    return 0;
  }
  // Biggest units first, then highest rating sum: good early solutions and fewer dead ends.
  for (let i = 0; i < count; i++) order[i] = i;
  for (let i = 1; i < count; i++) {
    const u = order[i]!;
    let j = i - 1;
    while (j >= 0 && before(u, order[j]!, sizes, sums)) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = u;
  }
  teamSum.fill(0, 0, teams);
  teamFill.fill(0, 0, teams);
  const exactSplit = partitionCount(teams, perTeam) <= EXACT_PARTITION_LIMIT;
  const range = !exactSplit
    ? heuristic(count, sizes, sums, teams, perTeam)
    : teams === 2 && count === 2 * perTeam
      ? exactTwoTeamsOfSingles(count, sums, perTeam)
      : exact(count, sizes, sums, teams, perTeam);
  if (range < 0) return -1;
  for (let i = 0; i < count; i++) teamOf[order[i]!] = best[i]!;
  return range / perTeam;
}

/**
 * 2v2 of single players, the most common match, in constant time. With ratings sorted high to low
 * (a ≥ b ≥ c ≥ d), {a, d} against {b, c} is optimal; the loop below picks exactly what
 * `exactTwoTeamsOfSingles` would (the first of {a,b}, {a,c}, {a,d} whose difference is as small),
 * including its tie-breaking and floating-point sums, without its set-up cost.
 */
const fourOrder = new Int32Array(4);

function twoVsTwoOfSingles(sums: Float64Array, teamOf: Int32Array): number {
  // Stable insertion sort of the four by rating, highest first (as balanceTeams' own sort does).
  const o = fourOrder;
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
  const candidates = [o1, o2, o3] as const;
  const values = [v1, v2, v3] as const;
  for (let k = 0; k < 3; k++) {
    const diff = Math.abs(total - 2 * (v0 + values[k]!));
    if (diff < bestDiff || (diff === bestDiff && !fromSearch)) {
      bestDiff = diff;
      fromSearch = true;
      partner = candidates[k]!;
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

function before(a: number, b: number, sizes: Int32Array, sums: Float64Array): boolean {
  if (sizes[a] !== sizes[b]) return sizes[a]! > sizes[b]!;
  return sums[a]! > sums[b]!;
}

let bestRange = 0;
let chosen = new Int32Array(0);
let bestChosen = new Int32Array(0);
let vals = new Float64Array(0);
let prefix = new Float64Array(0);
let suffix = new Float64Array(0);
let tTotal = 0;
let tPick = 0;
let tCount = 0;
let tSlack = 0;
let tBestDiff = 0;
let tFromSearch = false;

/**
 * Two teams of single players: the team of the best player takes perTeam - 1 of the others. A
 * depth-first search over those combinations in lexicographic order (ratings sorted high to low),
 * with each combination's sum accumulated in index order, so its value does not depend on the path.
 * It starts from the ABBA draft's split and cuts every subtree whose sums (bounded by the largest and
 * smallest remaining ratings) cannot come within the best difference so far. It returns the
 * lexicographically first combination with the smallest difference, as visiting all of them would.
 */
function exactTwoTeamsOfSingles(count: number, sums: Float64Array, perTeam: number): number {
  const pick = perTeam - 1;
  if (chosen.length < pick + 1 || vals.length < count + 1) {
    chosen = new Int32Array(2 * (pick + 1));
    bestChosen = new Int32Array(2 * (pick + 1));
    vals = new Float64Array(2 * (count + 1));
    prefix = new Float64Array(2 * (count + 1));
    suffix = new Float64Array(2 * (count + 1));
  }
  let total = 0;
  prefix[0] = 0;
  for (let i = 0; i < count; i++) {
    const v = sums[order[i]!]!;
    vals[i] = v;
    total += v;
    prefix[i + 1] = prefix[i]! + v;
  }
  suffix[0] = 0;
  for (let r = 1; r <= pick; r++) suffix[r] = suffix[r - 1]! + vals[count - r]!;
  // The ABBA draft (indices 0, 3, 4, 7, 8, … in the first team) is close to the optimum.
  let sum = vals[0]!;
  for (let i = 1, k = 0; i < count; i++) {
    if ((i & 3) === 0 || (i & 3) === 3) {
      bestChosen[k++] = i;
      sum += vals[i]!;
    }
  }
  tTotal = total;
  tPick = pick;
  tCount = count;
  tBestDiff = Math.abs(total - 2 * sum);
  tFromSearch = false;
  // Covers the rounding of bounds computed from differently ordered sums.
  tSlack = 1e-9 * (Math.abs(total) + 1);
  if (pick > 0) visit(1, 0, vals[0]!);
  for (let i = 0; i < count; i++) best[i] = 1;
  best[0] = 0;
  for (let k = 0; k < pick; k++) best[bestChosen[k]!] = 0;
  return tBestDiff;
}

/** Chooses member `k` of the combination from indices `start…`, the sum so far being `sum`. */
function visit(start: number, k: number, sum: number): boolean {
  const r = tPick - k;
  const total = tTotal;
  const last = tCount - r;
  for (let i = start; i <= last; i++) {
    const v = vals[i]!;
    // Largest reachable sum: this and the next r - 1 ratings; smallest: this and the last r - 1.
    const high = sum + (prefix[i + r]! - prefix[i]!);
    if (total - 2 * high > tBestDiff + tSlack) return false; // later i only lower it
    const low = sum + v + suffix[r - 1]!;
    if (2 * low - total > tBestDiff + tSlack) continue;
    const next = sum + v;
    chosen[k] = i;
    if (r === 1) {
      const diff = Math.abs(total - 2 * next);
      if (diff < tBestDiff || (diff === tBestDiff && !tFromSearch)) {
        tBestDiff = diff;
        tFromSearch = true;
        for (let j = 0; j < tPick; j++) bestChosen[j] = chosen[j]!;
        if (diff === 0) return true;
      }
    } else if (visit(i + 1, k + 1, next)) return true;
  }
  return false;
}

function exact(count: number, sizes: Int32Array, sums: Float64Array, teams: number, perTeam: number): number {
  bestRange = Number.POSITIVE_INFINITY;
  search(0, count, sizes, sums, teams, perTeam);
  return bestRange === Number.POSITIVE_INFINITY ? -1 : bestRange;
}

function search(
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
      const s = teamSum[t]!;
      if (s < min) min = s;
      if (s > max) max = s;
    }
    const range = max - min;
    if (range < bestRange) {
      bestRange = range;
      for (let i = 0; i < count; i++) best[i] = current[i]!;
    }
    return;
  }
  const u = order[depth]!;
  const size = sizes[u]!;
  const sum = sums[u]!;
  for (let t = 0; t < teams; t++) {
    const fill = teamFill[t]!;
    if (fill + size > perTeam) continue;
    teamFill[t] = fill + size;
    teamSum[t] = teamSum[t]! + sum;
    current[depth] = t;
    search(depth + 1, count, sizes, sums, teams, perTeam);
    teamFill[t] = fill;
    teamSum[t] = teamSum[t]! - sum;
    if (bestRange === 0) return;
    // Empty teams are interchangeable: trying the first one is enough.
    if (fill === 0) return;
  }
}

function heuristic(
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
      best[i] = round % 2 === 0 ? slot : teams - 1 - slot;
    }
    snakeRange = improve(count, sizes, sums, teams);
    alternative.set(best.subarray(0, count));
  }
  teamFill.fill(0, 0, teams);
  teamSum.fill(0, 0, teams);
  if (!greedyPlace(count, sizes, sums, teams, perTeam, true)) {
    teamSum.fill(0, 0, teams);
    teamFill.fill(0, 0, teams);
    if (!greedyPlace(count, sizes, sums, teams, perTeam, false)) {
      if (!singles) return -1;
      best.set(alternative.subarray(0, count));
      return snakeRange;
    }
  }
  const greedyRange = improve(count, sizes, sums, teams);
  if (greedyRange <= snakeRange) return greedyRange;
  best.set(alternative.subarray(0, count));
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
function improve(count: number, sizes: Int32Array, sums: Float64Array, teams: number): number {
  teamSum.fill(0, 0, teams);
  for (let i = 0; i < count; i++) teamSum[best[i]!] = teamSum[best[i]!]! + sums[order[i]!]!;
  const bySizeThenSum = (a: number, b: number) =>
    sizes[order[a]!]! - sizes[order[b]!]! || sums[order[a]!]! - sums[order[b]!]! || a - b;
  for (let iteration = 0; iteration < MAX_SWAP_ROUNDS; iteration++) {
    let hi = 0;
    let lo = 0;
    for (let t = 1; t < teams; t++) {
      if (teamSum[t]! > teamSum[hi]!) hi = t;
      if (teamSum[t]! < teamSum[lo]!) lo = t;
    }
    const diff = teamSum[hi]! - teamSum[lo]!;
    if (!(diff > 0)) break;
    let nHi = 0;
    let nLo = 0;
    for (let i = 0; i < count; i++) {
      if (best[i] === hi) hiMembers[nHi++] = i;
      else if (best[i] === lo) loMembers[nLo++] = i;
    }
    const hiSorted = hiMembers.subarray(0, nHi).sort(bySizeThenSum);
    const loSorted = loMembers.subarray(0, nLo).sort(bySizeThenSum);
    // For each unit i of the high team, the low-team unit j of its size whose sum is nearest to
    // sum(i) - diff/2; j only moves forward as sum(i) grows.
    let bestI = -1;
    let bestJ = -1;
    let bestAfter = diff;
    let j = 0;
    for (let a = 0; a < nHi; a++) {
      const i = hiSorted[a]!;
      const size = sizes[order[i]!]!;
      const target = sums[order[i]!]! - diff / 2;
      while (
        j < nLo &&
        (sizes[order[loSorted[j]!]!]! < size ||
          (sizes[order[loSorted[j]!]!]! === size && sums[order[loSorted[j]!]!]! <= target))
      )
        j++;
      // Candidates: the first unit above the target, and the first of the run just at or below it.
      for (let side = 0; side < 2; side++) {
        let k = side === 0 ? j : j - 1;
        if (k < 0 || k >= nLo || sizes[order[loSorted[k]!]!] !== size) continue;
        if (side === 1)
          while (
            k > 0 &&
            sums[order[loSorted[k - 1]!]!] === sums[order[loSorted[k]!]!] &&
            sizes[order[loSorted[k - 1]!]!] === size
          )
            k--;
        const jj = loSorted[k]!;
        const d = sums[order[i]!]! - sums[order[jj]!]!;
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
    if (bestI < 0) break;
    const d = sums[order[bestI]!]! - sums[order[bestJ]!]!;
    best[bestI] = lo;
    best[bestJ] = hi;
    teamSum[hi] = teamSum[hi]! - d;
    teamSum[lo] = teamSum[lo]! + d;
  }
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let t = 0; t < teams; t++) {
    if (teamSum[t]! < min) min = teamSum[t]!;
    if (teamSum[t]! > max) max = teamSum[t]!;
  }
  return max - min;
}

/**
 * Places units in `order`: by rating (lowest-sum team with room) or, as the packing fallback, by
 * room (fullest team the unit still fits in). Returns false when a unit finds no team.
 */
function greedyPlace(
  count: number,
  sizes: Int32Array,
  sums: Float64Array,
  teams: number,
  perTeam: number,
  byRating: boolean,
): boolean {
  for (let i = 0; i < count; i++) {
    const u = order[i]!;
    const size = sizes[u]!;
    let chosen = -1;
    for (let t = 0; t < teams; t++) {
      if (teamFill[t]! + size > perTeam) continue;
      if (chosen < 0) chosen = t;
      else if (byRating ? teamSum[t]! < teamSum[chosen]! : teamFill[t]! > teamFill[chosen]!) chosen = t;
    }
    if (chosen < 0) return false;
    best[i] = chosen;
    teamFill[chosen] = teamFill[chosen]! + size;
    teamSum[chosen] = teamSum[chosen]! + sums[u]!;
  }
  return true;
}
