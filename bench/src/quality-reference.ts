/**
 * The offline reference of a quality scenario: what a schedule that knows every arrival in advance
 * can do while held to the online strategy's waits. Simulated annealing over groupings, started from
 * the online strategy's matches (ours):
 *
 * - a state is a set of matches (units: parties or single tickets) plus the units left unmatched;
 *   the same number of tickets is matched as online, so the share matched is the same;
 * - a match is formed the second its last unit arrives (the earliest possible), so every ticket's
 *   wait is at most what it was online when the search starts;
 * - hard constraints: every match's units share a usable server, and no ticket waits longer than the
 *   online maximum; the sum of waits (the mean) and the number of waits above the online p95 may not
 *   exceed the online figures;
 * - optionally (`keepPromise`, used by `quality-hindsight.ts`, not by the benchmark) no match spans
 *   more than `targetWaitingTime` unless ours formed the same match;
 * - a move swaps two units of the same size between two matches (or a match and the unmatched),
 *   chosen close in arrival time and rating; the cost is Σ spread + w·Σ imbalance with w the weight
 *   of imbalance in `matchScore` (`IMBALANCE_WEIGHT`), the quantity the online search minimises, so
 *   the reference is the best schedule found for the objective the matchmaker itself pursues; each
 *   match's teams split as evenly as its units allow.
 *
 * - the temperatures are relative to the mean cost of our matches; if the annealing ends above our
 *   own cost, the reference is our schedule.
 *
 * It finds a good schedule, not the best one, so ours / reference overstates how close we are to the
 * true optimum; it is the same search for every strategy and scenario, so the ratios compare. It is
 * still not converged: more moves keep finding better schedules (ALGORITHM.md §8 has the figures).
 */

import { IMBALANCE_WEIGHT } from "@arena/matchmaker/matching";
import { type FormedMatch, matchShape, percentile } from "./quality-replay.js";
import type { Stream } from "./quality-streams.js";
import { mulberry32 } from "./queue-generator.js";

interface Unit {
  size: number;
  sum: number;
  min: number;
  max: number;
  join: number;
  mask: number;
}

interface WaitBudget {
  maxWait: number;
  /**
   * Longest a match may span between its first and last arrival (its oldest ticket's wait), unless
   * the same match was in the online schedule (`ReferenceOptions.keepPromise`); the maximum otherwise.
   */
  maxSpan: number;
  /** Largest allowed sum of matched tickets' waits. */
  sumWait: number;
  /** A wait above `p95` counts against `overAllowed`. */
  p95: number;
  overAllowed: number;
}

/** Best split of `members` (unit ids) into two teams of `perTeam` players: the range of team means. */
function bestImbalance(units: Unit[], members: number[], perTeam: number): number {
  let total = 0;
  for (const u of members) total += units[u]!.sum;
  let best = Number.POSITIVE_INFINITY;
  // Team 0 holds the first unit (removes the symmetry); depth-first over the rest.
  const visit = (i: number, size: number, sum: number): void => {
    if (size === perTeam) {
      const diff = Math.abs(2 * sum - total) / perTeam;
      if (diff < best) best = diff;
      return;
    }
    for (let k = i; k < members.length; k++) {
      const unit = units[members[k]!]!;
      if (size + unit.size <= perTeam) visit(k + 1, size + unit.size, sum + unit.sum);
    }
  };
  const first = units[members[0]!]!;
  visit(1, first.size, first.sum);
  return best;
}

function matchKey(members: number[]): string {
  return [...members].sort((x, y) => x - y).join(",");
}

class Annealer {
  readonly matchUnits: number[][];
  readonly unitMatch: Int32Array;
  /** The online schedule's matches (sorted unit ids, joined): they may span up to `maxWait`. */
  private readonly online: Set<string>;
  readonly cost: Float64Array;
  totalCost = 0;
  sumWait = 0;
  over = 0;

  constructor(
    readonly units: Unit[],
    matches: number[][],
    readonly perTeam: number,
    readonly budget: WaitBudget,
  ) {
    this.matchUnits = matches;
    this.online = new Set(matches.map(matchKey));
    this.unitMatch = new Int32Array(units.length).fill(-1);
    this.cost = new Float64Array(matches.length);
    matches.forEach((m, i) => {
      for (const u of m) this.unitMatch[u] = i;
      this.cost[i] = this.costOf(m);
      this.totalCost += this.cost[i]!;
      const [w, o] = this.waitsOf(m);
      this.sumWait += w;
      this.over += o;
    });
  }

  costOf(members: number[]): number {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const u of members) {
      lo = Math.min(lo, this.units[u]!.min);
      hi = Math.max(hi, this.units[u]!.max);
    }
    return hi - lo + IMBALANCE_WEIGHT * bestImbalance(this.units, members, this.perTeam);
  }

  /** Sum of waits and count above p95 when formed at the last arrival; NaN when infeasible. */
  waitsOf(members: number[]): [number, number] {
    let mask = -1;
    let last = Number.NEGATIVE_INFINITY;
    let first = Number.POSITIVE_INFINITY;
    for (const u of members) {
      mask &= this.units[u]!.mask;
      last = Math.max(last, this.units[u]!.join);
      first = Math.min(first, this.units[u]!.join);
    }
    if (mask === 0 || last - first > this.budget.maxWait) return [Number.NaN, 0];
    if (last - first > this.budget.maxSpan && !this.online.has(matchKey(members))) return [Number.NaN, 0];
    let sum = 0;
    let over = 0;
    for (const u of members) {
      const wait = last - this.units[u]!.join;
      sum += wait * this.units[u]!.size;
      if (wait > this.budget.p95) over += this.units[u]!.size;
    }
    return [sum, over];
  }

  /** Tries swapping units u and v (same size, different matches); applies it if accepted. */
  trySwap(u: number, v: number, temperature: number, rand: () => number): void {
    const a = this.unitMatch[u]!;
    const b = this.unitMatch[v]!;
    if (a === b || a < 0 || this.units[u]!.size !== this.units[v]!.size) return;
    const newA = this.matchUnits[a]!.map((x) => (x === u ? v : x));
    const [waitA, overA] = this.waitsOf(newA);
    if (Number.isNaN(waitA)) return;
    const oldA = this.waitsOf(this.matchUnits[a]!);
    let delta = this.costOf(newA) - this.cost[a]!;
    let dWait = waitA - oldA[0];
    let dOver = overA - oldA[1];
    let newB: number[] | undefined;
    let costB = 0;
    if (b >= 0) {
      newB = this.matchUnits[b]!.map((x) => (x === v ? u : x));
      const [waitB, overB] = this.waitsOf(newB);
      if (Number.isNaN(waitB)) return;
      const oldB = this.waitsOf(this.matchUnits[b]!);
      costB = this.costOf(newB);
      delta += costB - this.cost[b]!;
      dWait += waitB - oldB[0];
      dOver += overB - oldB[1];
    }
    if (this.sumWait + dWait > this.budget.sumWait + 1e-9) return;
    if (this.over + dOver > this.budget.overAllowed) return;
    if (delta > 0 && rand() >= Math.exp(-delta / temperature)) return;
    this.apply(a, newA, b, newB, costB, u, v);
    this.totalCost += delta;
    this.sumWait += dWait;
    this.over += dOver;
  }

  private apply(
    a: number,
    newA: number[],
    b: number,
    newB: number[] | undefined,
    costB: number,
    u: number,
    v: number,
  ) {
    this.cost[a] = this.costOf(newA);
    this.matchUnits[a] = newA;
    this.unitMatch[v] = a;
    this.unitMatch[u] = b;
    if (newB !== undefined) {
      this.matchUnits[b] = newB;
      this.cost[b] = costB;
    }
  }
}

function unitsOf(stream: Stream): Unit[] {
  return stream.units.map((unit) => {
    const ratings = unit.tickets.map((t) => stream.tickets[t]!.rating);
    return {
      size: ratings.length,
      sum: ratings.reduce((s, r) => s + r, 0),
      min: Math.min(...ratings),
      max: Math.max(...ratings),
      join: unit.join,
      mask: unit.mask,
    };
  });
}

function budgetOf(stream: Stream, online: FormedMatch[]): WaitBudget {
  const waits: number[] = [];
  for (const m of online)
    for (const team of m.teams) for (const t of team) waits.push(m.at - stream.tickets[t]!.joinTimestamp);
  waits.sort((x, y) => x - y);
  const p95 = percentile(waits, 0.95);
  const maxWait = waits.length === 0 ? 0 : waits[waits.length - 1]!;
  return {
    maxWait,
    maxSpan: maxWait,
    sumWait: waits.reduce((s, w) => s + w, 0),
    p95,
    overAllowed: waits.length - Math.ceil(0.95 * waits.length),
  };
}

/** Partners considered for each unit: this many nearest in rating on each side that can share a match. */
const PARTNERS_PER_SIDE = 8;
/** Units looked at on each side in rating order when collecting them. */
const PARTNER_SCAN = 4000;

/**
 * For each unit, its nearest units in rating (same size, a shared server) that arrived within the
 * longest wait of it: the only swaps that can keep a match feasible and tight.
 */
function partnerLists(units: Unit[], maxWait: number): Int32Array[] {
  const mean = (u: number) => units[u]!.sum / units[u]!.size;
  const byRating = Int32Array.from(units.keys()).sort((x, y) => mean(x) - mean(y));
  const lists: Int32Array[] = new Array(units.length);
  byRating.forEach((u, at) => {
    const found: number[] = [];
    for (const step of [-1, 1]) {
      let taken = 0;
      for (
        let k = at + step, seen = 0;
        k >= 0 && k < byRating.length && seen < PARTNER_SCAN;
        k += step, seen++
      ) {
        const v = byRating[k]!;
        const a = units[u]!;
        const b = units[v]!;
        if (b.size !== a.size || (a.mask & b.mask) === 0 || Math.abs(a.join - b.join) > maxWait) continue;
        found.push(v);
        if (++taken === PARTNERS_PER_SIDE) break;
      }
    }
    lists[u] = Int32Array.from(found);
  });
  return lists;
}

export interface ReferenceOptions {
  /** Proposals per unit of the stream. */
  movesPerUnit?: number;
  seed?: number;
  /**
   * Hold the reference to the promise of `targetWaitingTime` too (ALGORITHM.md §2: a ticket that
   * reached it takes the first compatible match): no match may span more than this many seconds
   * between its first and last arrival unless the online schedule formed the same match (ours keeps
   * the promise, so its longer matches had no partners earlier). Stricter than the promise itself,
   * which lets a ticket wait on while no compatible match is free. Off by default.
   */
  keepPromise?: number;
}

/**
 * The annealing temperature falls geometrically from `HOT` to `COLD` times the mean cost of one of
 * our matches, so the schedule follows the scale of the scenario's matches (wide at T = 10, tight at
 * 20 arrivals a second). Chosen on the target scenarios' first streams among hot 0.15–0.4 and fixed
 * temperatures (ALGORITHM.md §8).
 */
const HOT = 0.3;
const COLD = 0.01;
/** Proposals per unit unless the caller says otherwise, and a cap on the proposals of one stream. */
const MOVES_PER_UNIT = 10_000;
const MAX_MOVES = 60_000_000;

/** The offline reference schedule for `stream`, held to the waits of the `online` matches. */
export function offlineReference(
  stream: Stream,
  online: FormedMatch[],
  perTeam: number,
  options: ReferenceOptions = {},
): FormedMatch[] {
  const units = unitsOf(stream);
  const budget = {
    ...budgetOf(stream, online),
    ...(options.keepPromise === undefined ? {} : { maxSpan: options.keepPromise }),
  };
  const start = online.map((m) => [...new Set(m.teams.flat().map((t) => stream.ticketUnit[t]!))]);
  const annealer = new Annealer(
    units,
    start.map((m) => [...m]),
    perTeam,
    budget,
  );
  const startCost = annealer.totalCost;
  const meanCost = startCost / Math.max(1, start.length);
  if (meanCost > 0) {
    const partners = partnerLists(units, budget.maxWait);
    const moves = Math.min(MAX_MOVES, (options.movesPerUnit ?? MOVES_PER_UNIT) * units.length);
    const [hot, cold] = [HOT * meanCost, COLD * meanCost];
    const rand = mulberry32(options.seed ?? 7);
    for (let i = 0; i < moves; i++) {
      const temperature = hot * (cold / hot) ** (i / moves);
      const u = Math.floor(rand() * units.length);
      const list = partners[u]!;
      if (annealer.unitMatch[u]! >= 0 && list.length > 0)
        annealer.trySwap(u, list[Math.floor(rand() * list.length)]!, temperature, rand);
    }
  }
  // Never worse than where it started: if the annealing ends above our cost, the reference is ours.
  const matches = annealer.totalCost <= startCost ? annealer.matchUnits : start;
  const ratings = stream.tickets.map((t) => t.rating);
  return matches.map((members) => toFormedMatch(stream, ratings, units, members, perTeam));
}

/** A reference match as teams of tickets (its best split), formed at its last arrival. */
function toFormedMatch(
  stream: Stream,
  ratings: number[],
  units: Unit[],
  members: number[],
  perTeam: number,
): FormedMatch {
  let best: number[][] = [];
  let bestImbalance = Number.POSITIVE_INFINITY;
  const n = members.length;
  for (let mask = 1; mask < 1 << n; mask += 2) {
    const team0 = members.filter((_, i) => (mask >> i) & 1);
    if (team0.reduce((s, u) => s + units[u]!.size, 0) !== perTeam) continue;
    const team1 = members.filter((_, i) => !((mask >> i) & 1));
    const teams = [team0, team1].map((team) => team.flatMap((u) => stream.units[u]!.tickets));
    const [, imbalance] = matchShape(ratings, teams);
    if (imbalance < bestImbalance) {
      bestImbalance = imbalance;
      best = teams;
    }
  }
  return { teams: best, at: Math.max(...members.map((u) => units[u]!.join)) };
}

/**
 * A lower bound on the mean spread per match of any schedule that matches `matchCount` matches of
 * `matchSize` tickets with no wait above `maxWait` (ours), so ours / bound is an honest ceiling on how
 * far from the optimum we can be. A match formed at t holds tickets that joined within
 * [t − maxWait, t] and share a server, so for each of its tickets i its spread is at least b_i, the
 * smallest rating range of any `matchSize` tickets containing i that joined within `maxWait` of i and
 * share a server with i; a match's spread is at least the mean of its tickets' b_i, so the total is at
 * least the sum of the smallest matchCount·matchSize of all b_i over matchSize. (Ignoring time
 * altogether, as a partition of the sorted ratings into consecutive groups, gives a bound of a few
 * rating points: useless.) Parties are relaxed to single tickets, which keeps the bound valid.
 */
export function spreadLowerBound(
  stream: Stream,
  matchCount: number,
  matchSize: number,
  maxWait: number,
): number {
  if (matchCount === 0) return 0;
  const n = stream.tickets.length;
  const rating = stream.tickets.map((t) => t.rating);
  const join = stream.tickets.map((t) => t.joinTimestamp);
  const mask = stream.tickets.map((_, t) => stream.units[stream.ticketUnit[t]!]!.mask);
  const byRating = Int32Array.from({ length: n }, (_, i) => i).sort((x, y) => rating[x]! - rating[y]!);
  const need = matchSize - 1;
  const bounds = new Float64Array(n);
  const left: number[] = [];
  const right: number[] = [];
  byRating.forEach((i, at) => {
    // The nearest `need` compatible tickets on each side in rating (no scan cap: a cap could miss one).
    for (const [side, step] of [
      [left, -1],
      [right, 1],
    ] as const) {
      side.length = 0;
      for (let k = at + step; k >= 0 && k < n && side.length < need; k += step) {
        const j = byRating[k]!;
        if ((mask[i]! & mask[j]!) !== 0 && Math.abs(join[i]! - join[j]!) <= maxWait) side.push(rating[j]!);
      }
    }
    let best = Number.POSITIVE_INFINITY;
    for (let l = Math.max(0, need - right.length); l <= Math.min(need, left.length); l++) {
      const r = need - l;
      const hi = r > 0 ? right[r - 1]! : rating[i]!;
      const lo = l > 0 ? left[l - 1]! : rating[i]!;
      best = Math.min(best, hi - lo);
    }
    bounds[i] = best;
  });
  bounds.sort();
  let sum = 0;
  for (let k = 0; k < Math.min(n, matchCount * matchSize); k++)
    sum += Number.isFinite(bounds[k]!) ? bounds[k]! : 0;
  return sum / matchSize / matchCount;
}
