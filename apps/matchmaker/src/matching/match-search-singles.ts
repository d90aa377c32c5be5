/**
 * The match search for the common case: no parties (every unit is one ticket) and at most 32
 * servers in the request (one global bit per server). It makes exactly the same choices as the
 * general search in `match-search.ts` (tested on random queues), with far less work per anchor:
 *
 * - one scan per side collects, for each of the anchor's servers, its nearest `need` free
 *   neighbours on that server, and stops as soon as every server has them (the general search
 *   always collects `keep` neighbours and then filters them again per server);
 * - single tickets sorted by rating need no prefix minima or maxima: a window's spread is the
 *   distance between its outermost tickets;
 * - a server whose nearest neighbours are the same as an earlier server's is recognised by
 *   comparing the neighbour lists (no hashing), and so is a window already evaluated.
 *
 * Its scratch memory is a `SinglesScratch` the caller owns (through `SearchScratch`), grown on
 * demand and reused, so a call allocates only its result. Nothing in it survives from one call to
 * the next except capacity.
 */
import { ArrayArena } from "./array-arena.js";
import { type FreeLinks, linkFreeUnits, MatchOutput } from "./free-units.js";
import {
  choiceCost,
  IMBALANCE_WEIGHT,
  imbalanceToBeat,
  matchScore,
  maxSpreadFor,
  requiredScore,
  scoreBound,
  unitSpreadWeight,
} from "./match-quality.js";
import { NearWindows, nearWindowsApply } from "./near-windows.js";
import { PastTargetGroups, pastTargetGroupsApply } from "./past-target-groups.js";
import type { QueueModel } from "./queue-model.js";
import { neighbourLimits, SERVER_BITS } from "./search-limits.js";
import { EXACT_PARTITION_LIMIT, partitionCount, type TeamBalancer } from "./team-balancing.js";
import type { FoundMatches, SearchSettings } from "./types.js";

const BITS = SERVER_BITS;

/**
 * The single-ticket search's reusable arrays. Each group is allocated in full before any array or
 * capacity is replaced, so an allocation that fails (an absurd size) leaves the previous, consistent
 * arrays in place. `release` drops them, so a process that served one huge queue does not keep its
 * peak memory forever (see SearchScratch).
 */
export class SinglesScratch {
  unitCapacity = 0;
  orderCapacity = 0;
  matchCapacity = 0;
  pos = new Int32Array(0);
  links: FreeLinks = { prev: new Int32Array(0), next: new Int32Array(0), used: new Uint8Array(0) };
  pMean = new Float64Array(0);
  pOldest = new Float64Array(0);
  pMask = new Int32Array(0);
  listL = new Int32Array(0);
  listR = new Int32Array(0);
  prefixOldL = new Float64Array(0);
  prefixOldR = new Float64Array(0);
  cSpread = new Float64Array(0);
  cRequired = new Float64Array(0);
  cBit = new Int32Array(0);
  cLeft = new Int32Array(0);
  cDone = new Uint8Array(0);
  /** 1 for a near-contiguous candidate (a window of one more, one inner player to leave out). */
  cNear = new Uint8Array(0);
  eBit = new Int32Array(0);
  eLeft = new Int32Array(0);
  eSpread = new Float64Array(0);
  win = new Int32Array(0);
  winSize = new Int32Array(0);
  winSum = new Float64Array(0);
  winTeam = new Int32Array(0);
  bestWin = new Int32Array(0);
  bestTeam = new Int32Array(0);
  near = new NearWindows(0);
  /** The groups of an anchor past its target wait (2v2; past-target-groups.ts). */
  readonly past = new PastTargetGroups();
  readonly cntL = new Int32Array(BITS);
  readonly cntR = new Int32Array(BITS);
  readonly bitsTried = new Int32Array(BITS);

  ensure(units: number, length: number, matchSize: number): void {
    if (units > this.unitCapacity) {
      const capacity = Math.max(units, this.unitCapacity * 2);
      this.pos = new Int32Array(capacity);
      this.unitCapacity = capacity;
    }
    if (length > this.orderCapacity) {
      const capacity = Math.max(length, this.orderCapacity * 2);
      const links = {
        prev: new Int32Array(capacity),
        next: new Int32Array(capacity),
        used: new Uint8Array(capacity),
      };
      const mean = new Float64Array(capacity);
      const oldest = new Float64Array(capacity);
      const mask = new Int32Array(capacity);
      this.links = links;
      this.pMean = mean;
      this.pOldest = oldest;
      this.pMask = mask;
      this.orderCapacity = capacity;
    }
    if (matchSize > this.matchCapacity) {
      // Up to `matchSize` neighbours per server and side; per server up to `matchSize` contiguous
      // and `matchSize + 1` near-contiguous candidates.
      const cap = BITS * matchSize;
      const candidates = BITS * (2 * matchSize + 1);
      const grown = {
        listL: new Int32Array(cap),
        listR: new Int32Array(cap),
        prefixOldL: new Float64Array(matchSize + 1),
        prefixOldR: new Float64Array(matchSize + 1),
        cSpread: new Float64Array(candidates),
        cRequired: new Float64Array(candidates),
        cBit: new Int32Array(candidates),
        cLeft: new Int32Array(candidates),
        cDone: new Uint8Array(candidates),
        cNear: new Uint8Array(candidates),
        eBit: new Int32Array(candidates),
        eLeft: new Int32Array(candidates),
        eSpread: new Float64Array(candidates),
        win: new Int32Array(matchSize),
        winSize: new Int32Array(matchSize),
        winSum: new Float64Array(matchSize),
        winTeam: new Int32Array(matchSize),
        bestWin: new Int32Array(matchSize),
        bestTeam: new Int32Array(matchSize),
        near: new NearWindows(matchSize),
      };
      Object.assign(this, grown);
      this.matchCapacity = matchSize;
    }
  }

  /** Drops the arrays; the next call grows them again to what it needs. */
  release(): void {
    Object.assign(this, new SinglesScratch());
  }
}

/** True when the first `l` left and `r` right neighbours of servers `j` and `k` are the same (lists of `stride`). */
function sameLists(
  listL: Int32Array,
  listR: Int32Array,
  j: number,
  k: number,
  l: number,
  r: number,
  stride: number,
): boolean {
  const bj = j * stride;
  const bk = k * stride;
  for (let i = 0; i < l; i++) if (listL[bj + i] !== listL[bk + i]) return false;
  for (let i = 0; i < r; i++) if (listR[bj + i] !== listR[bk + i]) return false;
  return true;
}

/** Whether the fast search applies: single tickets only and one global bit per server. */
export function singlesSearchApplies(model: QueueModel, teams: number, perTeam: number): boolean {
  return !model.hasParties && model.unitServerMask !== undefined && teams * perTeam >= 2;
}

export function searchSingles(
  model: QueueModel,
  settings: SearchSettings,
  scratch: SinglesScratch,
  balancer: TeamBalancer,
  arrays: ArrayArena = new ArrayArena(),
): FoundMatches {
  const { teams, perTeam, now, targetWaitingTime, maxWaitingTime, tolerance } = settings;
  const matchSize = teams * perTeam;
  const need = matchSize - 1;
  const needsBalance = teams >= 2 && perTeam >= 2;
  const order = model.ratingOrder;
  const orderLength = order.length;
  const unitMean = model.unitMean;
  const unitOldest = model.unitOldest;
  const unitMask = model.unitServerMask!;
  scratch.ensure(model.unitCount, orderLength, matchSize);
  const { pos, links, pMean, pOldest, pMask, listL, listR, prefixOldL, prefixOldR } = scratch;
  const { cSpread, cRequired, cBit, cLeft, cDone, cNear, eBit, eLeft, eSpread } = scratch;
  const { win, winSize, winSum, winTeam, bestWin, bestTeam, cntL, cntR, bitsTried, near, past } = scratch;
  // With near-contiguous windows each server keeps one neighbour more per side (`span`).
  const nearWindows = nearWindowsApply(teams, perTeam);
  const pastTargetGroups = pastTargetGroupsApply(teams, perTeam);
  let anchorBits = 0;
  const sharedBits = (p: number) => pMask[p]! & anchorBits;
  const span = nearWindows ? need + 1 : need;
  const { prev, next, used } = links;

  for (let i = 0; i < orderLength; i++) {
    const u = order[i]!;
    pos[u] = i;
    pMean[i] = unitMean[u]!;
    pOldest[i] = unitOldest[u]!;
    pMask[i] = unitMask[u]!;
  }
  linkFreeUnits(order, orderLength, model.unitGroup, links);

  // A window's best imbalance is at most spread / perTeam for two exactly balanced teams (pair the
  // sorted ratings and split each pair), at most the spread otherwise; with a small safety margin.
  const imbalanceShare =
    teams === 2 && partitionCount(teams, perTeam) <= EXACT_PARTITION_LIMIT ? 1 / perTeam : 1;
  // In the units of the choice (spread + IMBALANCE_WEIGHT · imbalance), relative to the spread.
  const pruneFactor = !needsBalance ? 1 + 1e-9 : (1 + IMBALANCE_WEIGHT * imbalanceShare) * (1 + 1e-9);
  const { keep, scanCap } = neighbourLimits(matchSize);
  const output = new MatchOutput(order, orderLength, Math.floor(orderLength / matchSize), arrays);

  const anchors = model.anchorOrder;
  for (let ai = 0; ai < anchors.length; ai++) {
    const a = pos[anchors[ai]!]!;
    if (used[a] === 1) continue;
    const meanA = pMean[a]!;
    const anchorOld = pOldest[a]!;
    const anchorWait = Math.max(now - anchorOld, 0);
    const anchorRequired = requiredScore(anchorWait, targetWaitingTime, anchorWait >= maxWaitingTime);
    const weight = unitSpreadWeight(model, anchors[ai]!, settings);
    const maxDistance = maxSpreadFor(anchorRequired, tolerance, weight);
    const anchorMask = pMask[a]!;

    for (let bits = anchorMask; bits !== 0; ) {
      const low = bits & -bits;
      bits ^= low;
      const k = 31 - Math.clz32(low);
      cntL[k] = 0;
      cntR[k] = 0;
    }

    // Nearest free neighbours per server, on each side; stop once every server has `span`.
    let pending = anchorMask;
    let nl = 0;
    for (let u = prev[a]!, steps = 0; u >= 0 && nl < keep && steps < scanCap; u = prev[u]!, steps++) {
      if (meanA - pMean[u]! > maxDistance) break;
      const bits = pMask[u]! & anchorMask;
      if (bits === 0) continue;
      nl++;
      let open = bits & pending;
      while (open !== 0) {
        const low = open & -open;
        open ^= low;
        const k = 31 - Math.clz32(low);
        const c = cntL[k]!;
        listL[k * span + c] = u;
        cntL[k] = c + 1;
        if (c + 1 === span) pending ^= low;
      }
      if (pending === 0) break;
    }
    pending = anchorMask;
    let nr = 0;
    for (let u = next[a]!, steps = 0; u >= 0 && nr < keep && steps < scanCap; u = next[u]!, steps++) {
      if (pMean[u]! - meanA > maxDistance) break;
      const bits = pMask[u]! & anchorMask;
      if (bits === 0) continue;
      nr++;
      let open = bits & pending;
      while (open !== 0) {
        const low = open & -open;
        open ^= low;
        const k = 31 - Math.clz32(low);
        const c = cntR[k]!;
        listR[k * span + c] = u;
        cntR[k] = c + 1;
        if (c + 1 === span) pending ^= low;
      }
      if (pending === 0) break;
    }

    // Candidates: per server, every split of the `need` other players between the two sides.
    let nc = 0;
    let tried = 0;
    for (let bits = anchorMask; bits !== 0; ) {
      const low = bits & -bits;
      bits ^= low;
      const k = 31 - Math.clz32(low);
      const cl = cntL[k]!;
      const cr = cntR[k]!;
      if (cl + cr < need) continue;
      // Another server with the same nearest neighbours gives the same windows.
      let repeated = false;
      for (let t = 0; t < tried; t++) {
        const j = bitsTried[t]!;
        if (cntL[j] === cl && cntR[j] === cr && sameLists(listL, listR, j, k, cl, cr, span)) {
          repeated = true;
          break;
        }
      }
      if (repeated) continue;
      bitsTried[tried++] = k;
      const base = k * span;
      if (anchorRequired !== 0) {
        prefixOldL[0] = Number.POSITIVE_INFINITY;
        for (let i = 0; i < cl; i++) prefixOldL[i + 1] = Math.min(prefixOldL[i]!, pOldest[listL[base + i]!]!);
        prefixOldR[0] = Number.POSITIVE_INFINITY;
        for (let i = 0; i < cr; i++) prefixOldR[i + 1] = Math.min(prefixOldR[i]!, pOldest[listR[base + i]!]!);
      }
      // near = 1: the windows of one player more (near-windows.ts); the requirement kept is the most
      // lenient any of their subsets can have (their oldest ticket's), each subset is checked
      // against its own when evaluated.
      const kinds = nearWindows && cl + cr >= span ? 2 : 1;
      for (let near = 0; near < kinds; near++) {
        const size = need + near;
        for (let l = Math.max(size - cr, 0); l <= Math.min(cl, size); l++) {
          const r = size - l;
          const hi = r > 0 ? pMean[listR[base + r - 1]!]! : meanA;
          const lo = l > 0 ? pMean[listL[base + l - 1]!]! : meanA;
          const spread = hi - lo;
          let req = anchorRequired;
          if (anchorRequired !== 0) {
            const oldest = Math.min(anchorOld, prefixOldL[l]!, prefixOldR[r]!);
            if (oldest !== anchorOld) {
              const wait = Math.max(now - oldest, 0);
              req = requiredScore(wait, targetWaitingTime, wait >= maxWaitingTime);
            }
            if (req === anchorRequired ? spread > maxDistance : scoreBound(spread, tolerance, weight) < req)
              continue;
          }
          cSpread[nc] = spread;
          cRequired[nc] = req;
          cBit[nc] = k;
          cLeft[nc] = l;
          cDone[nc] = 0;
          cNear[nc] = near;
          nc++;
        }
      }
    }
    if (nc === 0) continue;
    if (anchorRequired === 0 && nc > 1) {
      // Every candidate is acceptable, so the smallest spread's window s (a contiguous one) costs at
      // most weight · s + IMBALANCE_WEIGHT · s · imbalanceShare, and a candidate of spread x at least
      // weight · x: candidates beyond s · (1 + (pruneFactor − 1) / weight) are never evaluated.
      let minSpread = Number.POSITIVE_INFINITY;
      for (let c = 0; c < nc; c++) if (cSpread[c]! < minSpread) minSpread = cSpread[c]!;
      const limit = minSpread * (1 + (pruneFactor - 1) / weight);
      let kept = 0;
      for (let c = 0; c < nc; c++) {
        const spread = cSpread[c]!;
        if (spread > limit) continue;
        cSpread[kept] = spread;
        cRequired[kept] = 0;
        cBit[kept] = cBit[c]!;
        cNear[kept] = cNear[c]!;
        cLeft[kept++] = cLeft[c]!;
      }
      nc = kept;
    }

    // Best acceptable candidate, the lowest cost (choiceCost): smallest spread first; the cost is at
    // least the weighted spread, so stop once no remaining candidate can beat the best one found.
    let bestScore = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    let evaluated = 0;
    for (;;) {
      let pick = -1;
      let pickSpread = Number.POSITIVE_INFINITY;
      for (let c = 0; c < nc; c++) {
        if (cDone[c] === 0 && (pick < 0 || cSpread[c]! < pickSpread)) {
          pick = c;
          pickSpread = cSpread[c]!;
        }
      }
      if (pick < 0) break;
      cDone[pick] = 1;
      if (weight * pickSpread >= bestCost) break;
      const k = cBit[pick]!;
      const l = cLeft[pick]!;
      if (cNear[pick] === 1) {
        const base = k * span;
        const full = near.full;
        let length = 0;
        for (let i = l - 1; i >= 0; i--) full[length++] = listL[base + i]!;
        full[length++] = a;
        for (let i = 0; i < span - l; i++) full[length++] = listR[base + i]!;
        const cost = near.evaluate(
          matchSize,
          l,
          anchorRequired,
          pMean,
          pOldest,
          pickSpread,
          weight,
          settings,
          balancer,
          bestCost,
          bestWin,
          bestTeam,
        );
        if (cost < bestCost) {
          bestCost = cost;
          bestScore = near.score;
        }
        continue;
      }
      const bound = scoreBound(pickSpread, tolerance, weight);
      const r = need - l;
      let duplicate = false;
      for (let e = 0; e < evaluated; e++) {
        if (eSpread[e] === pickSpread && eLeft[e] === l && sameLists(listL, listR, eBit[e]!, k, l, r, span)) {
          duplicate = true;
          break;
        }
      }
      if (duplicate) continue;
      eSpread[evaluated] = pickSpread;
      eLeft[evaluated] = l;
      eBit[evaluated++] = k;

      const base = k * span;
      let length = 0;
      for (let i = l - 1; i >= 0; i--) win[length++] = listL[base + i]!;
      win[length++] = a;
      for (let i = 0; i < r; i++) win[length++] = listR[base + i]!;
      let score = bound;
      let cost = weight * pickSpread;
      if (needsBalance) {
        for (let i = 0; i < length; i++) {
          winSize[i] = 1;
          winSum[i] = pMean[win[i]!]!;
        }
        const beat = imbalanceToBeat(bestCost, pickSpread, weight);
        const imbalance = balancer.balance(length, winSize, winSum, teams, perTeam, winTeam, beat);
        if (imbalance < 0) continue;
        score = matchScore(pickSpread, imbalance, tolerance, weight);
        cost = choiceCost(pickSpread, imbalance, weight);
      } else if (teams === 1) {
        for (let i = 0; i < length; i++) winTeam[i] = 0;
      } else {
        for (let i = 0; i < length; i++) winTeam[i] = i;
      }
      if (score >= cRequired[pick]! && cost < bestCost) {
        bestScore = score;
        bestCost = cost;
        for (let i = 0; i < length; i++) {
          bestWin[i] = win[i]!;
          bestTeam[i] = winTeam[i]!;
        }
      }
    }
    if (pastTargetGroups && anchorRequired === 0) {
      anchorBits = anchorMask;
      const cost = past.evaluate(
        a,
        prev,
        next,
        pMean,
        sharedBits,
        scanCap,
        tolerance,
        weight,
        bestCost,
        bestWin,
        bestTeam,
      );
      if (cost < bestCost) bestScore = past.score;
    }
    if (bestScore < 0) continue;

    output.record(links, bestWin, bestTeam, matchSize, bestScore);
  }
  return output.result();
}
