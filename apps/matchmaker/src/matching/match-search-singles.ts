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
 * All scratch memory is module-level typed arrays grown on demand, so a call allocates only its
 * result. The function is re-entrant for sequential calls (nothing survives between calls).
 */
import { matchScore, maxSpreadFor, requiredScore, scoreBound } from "./match-quality.js";
import type { FoundMatches, SearchSettings } from "./match-search.js";
import type { QueueModel } from "./queue-model.js";
import { balanceTeams, EXACT_PARTITION_LIMIT, partitionCount } from "./team-balancing.js";

const NEIGHBOURS_PER_PLAYER = 3;
const MIN_NEIGHBOURS = 8;
const SCAN_PER_NEIGHBOUR = 4;
const BITS = 32;

let unitCapacity = 0;
let orderCapacity = 0;
let s_pos = new Int32Array(0);
let s_prev = new Int32Array(0);
let s_next = new Int32Array(0);
let s_pMean = new Float64Array(0);
let s_pOldest = new Float64Array(0);
let s_pMask = new Int32Array(0);
let s_used = new Uint8Array(0);

let need1Capacity = 0;
let s_listL = new Int32Array(0);
let s_listR = new Int32Array(0);
let s_prefixOldL = new Float64Array(0);
let s_prefixOldR = new Float64Array(0);
let s_cSpread = new Float64Array(0);
let s_cRequired = new Float64Array(0);
let s_cBit = new Int32Array(0);
let s_cLeft = new Int32Array(0);
let s_cDone = new Uint8Array(0);
let s_eBit = new Int32Array(0);
let s_eLeft = new Int32Array(0);
let s_eSpread = new Float64Array(0);
let s_win = new Int32Array(0);
let s_winSize = new Int32Array(0);
let s_winSum = new Float64Array(0);
let s_winTeam = new Int32Array(0);
let s_bestWin = new Int32Array(0);
let s_bestTeam = new Int32Array(0);
const cntL = new Int32Array(BITS);
const cntR = new Int32Array(BITS);
const bitsTried = new Int32Array(BITS);

/**
 * Grows the scratch arrays. Each group is allocated in full before any array or capacity is replaced,
 * so an allocation that fails (an absurd size) leaves the previous, consistent scratch in place.
 */
function ensure(units: number, length: number, matchSize: number): void {
  if (units > unitCapacity) {
    const capacity = Math.max(units, unitCapacity * 2);
    s_pos = new Int32Array(capacity);
    unitCapacity = capacity;
  }
  if (length > orderCapacity) {
    const capacity = Math.max(length, orderCapacity * 2);
    const prev = new Int32Array(capacity);
    const next = new Int32Array(capacity);
    const mean = new Float64Array(capacity);
    const oldest = new Float64Array(capacity);
    const mask = new Int32Array(capacity);
    const used = new Uint8Array(capacity);
    s_prev = prev;
    s_next = next;
    s_pMean = mean;
    s_pOldest = oldest;
    s_pMask = mask;
    s_used = used;
    orderCapacity = capacity;
  }
  if (matchSize > need1Capacity) {
    const cap = BITS * matchSize;
    const grown = {
      listL: new Int32Array(cap),
      listR: new Int32Array(cap),
      prefixOldL: new Float64Array(matchSize + 1),
      prefixOldR: new Float64Array(matchSize + 1),
      cSpread: new Float64Array(cap),
      cRequired: new Float64Array(cap),
      cBit: new Int32Array(cap),
      cLeft: new Int32Array(cap),
      cDone: new Uint8Array(cap),
      eBit: new Int32Array(cap),
      eLeft: new Int32Array(cap),
      eSpread: new Float64Array(cap),
      win: new Int32Array(matchSize),
      winSize: new Int32Array(matchSize),
      winSum: new Float64Array(matchSize),
      winTeam: new Int32Array(matchSize),
      bestWin: new Int32Array(matchSize),
      bestTeam: new Int32Array(matchSize),
    };
    s_listL = grown.listL;
    s_listR = grown.listR;
    s_prefixOldL = grown.prefixOldL;
    s_prefixOldR = grown.prefixOldR;
    s_cSpread = grown.cSpread;
    s_cRequired = grown.cRequired;
    s_cBit = grown.cBit;
    s_cLeft = grown.cLeft;
    s_cDone = grown.cDone;
    s_eBit = grown.eBit;
    s_eLeft = grown.eLeft;
    s_eSpread = grown.eSpread;
    s_win = grown.win;
    s_winSize = grown.winSize;
    s_winSum = grown.winSum;
    s_winTeam = grown.winTeam;
    s_bestWin = grown.bestWin;
    s_bestTeam = grown.bestTeam;
    need1Capacity = matchSize;
  }
}

/** True when the first `l` left and `r` right neighbours of servers `j` and `k` are the same. */
function sameLists(
  listL: Int32Array,
  listR: Int32Array,
  j: number,
  k: number,
  l: number,
  r: number,
  need: number,
): boolean {
  const bj = j * need;
  const bk = k * need;
  for (let i = 0; i < l; i++) if (listL[bj + i] !== listL[bk + i]) return false;
  for (let i = 0; i < r; i++) if (listR[bj + i] !== listR[bk + i]) return false;
  return true;
}

/** Whether the fast search applies: single tickets only and one global bit per server. */
export function singlesSearchApplies(model: QueueModel, teams: number, perTeam: number): boolean {
  return !model.hasParties && model.unitServerMask !== undefined && teams * perTeam >= 2;
}

export function searchSingles(model: QueueModel, settings: SearchSettings): FoundMatches {
  const { teams, perTeam, now, targetWaitingTime, maxWaitingTime, tolerance } = settings;
  const matchSize = teams * perTeam;
  const need = matchSize - 1;
  const needsBalance = teams >= 2 && perTeam >= 2;
  const order = model.ratingOrder;
  const orderLength = order.length;
  const unitMean = model.unitMean;
  const unitOldest = model.unitOldest;
  const unitGroup = model.unitGroup;
  const unitMask = model.unitServerMask!;
  ensure(model.unitCount, orderLength, matchSize);
  const pos = s_pos;
  const prev = s_prev;
  const next = s_next;
  const pMean = s_pMean;
  const pOldest = s_pOldest;
  const pMask = s_pMask;
  const used = s_used;
  const listL = s_listL;
  const listR = s_listR;
  const prefixOldL = s_prefixOldL;
  const prefixOldR = s_prefixOldR;
  const cSpread = s_cSpread;
  const cRequired = s_cRequired;
  const cBit = s_cBit;
  const cLeft = s_cLeft;
  const cDone = s_cDone;
  const eBit = s_eBit;
  const eLeft = s_eLeft;
  const eSpread = s_eSpread;
  const win = s_win;
  const winSize = s_winSize;
  const winSum = s_winSum;
  const winTeam = s_winTeam;
  const bestWin = s_bestWin;
  const bestTeam = s_bestTeam;

  for (let i = 0; i < orderLength; i++) {
    const u = order[i]!;
    pos[u] = i;
    pMean[i] = unitMean[u]!;
    pOldest[i] = unitOldest[u]!;
    pMask[i] = unitMask[u]!;
    used[i] = 0;
  }
  let lastGroup = -1;
  for (let i = 0; i < orderLength; i++) {
    const g = unitGroup[order[i]!]!;
    prev[i] = g === lastGroup ? i - 1 : -1;
    if (g !== lastGroup && i > 0) next[i - 1] = -1;
    else if (i > 0) next[i - 1] = i;
    lastGroup = g;
  }
  if (orderLength > 0) next[orderLength - 1] = -1;

  // A window's best imbalance is at most spread / perTeam for two exactly balanced teams (pair the
  // sorted ratings and split each pair), at most the spread otherwise; with a small safety margin.
  const imbalanceShare =
    teams === 2 && partitionCount(teams, perTeam) <= EXACT_PARTITION_LIMIT ? 1 / perTeam : 1;
  const pruneFactor = needsBalance ? (1 + 4 * imbalanceShare * imbalanceShare) * (1 + 1e-9) : 1 + 1e-9;
  const keep = Math.max(MIN_NEIGHBOURS, NEIGHBOURS_PER_PLAYER * matchSize);
  const scanCap = SCAN_PER_NEIGHBOUR * keep;

  const out: FoundMatches = {
    count: 0,
    unitStart: new Int32Array(Math.floor(orderLength / matchSize) + 1),
    units: new Int32Array(orderLength),
    unitTeam: new Int32Array(orderLength),
    score: new Float64Array(Math.floor(orderLength / matchSize)),
  };
  const outUnits = out.units;
  const outTeam = out.unitTeam;
  const outStart = out.unitStart;
  const outScore = out.score;
  let outCount = 0;
  let outLength = 0;

  const anchors = model.anchorOrder;
  for (let ai = 0; ai < anchors.length; ai++) {
    const a = pos[anchors[ai]!]!;
    if (used[a] === 1) continue;
    const meanA = pMean[a]!;
    const anchorOld = pOldest[a]!;
    const anchorWait = Math.max(now - anchorOld, 0);
    const anchorRequired = requiredScore(anchorWait, targetWaitingTime, anchorWait >= maxWaitingTime);
    const maxDistance = maxSpreadFor(anchorRequired, tolerance);
    const anchorMask = pMask[a]!;

    for (let bits = anchorMask; bits !== 0; ) {
      const low = bits & -bits;
      bits ^= low;
      const k = 31 - Math.clz32(low);
      cntL[k] = 0;
      cntR[k] = 0;
    }

    // Nearest free neighbours per server, on each side; stop once every server has `need`.
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
        listL[k * need + c] = u;
        cntL[k] = c + 1;
        if (c + 1 === need) pending ^= low;
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
        listR[k * need + c] = u;
        cntR[k] = c + 1;
        if (c + 1 === need) pending ^= low;
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
        if (cntL[j] === cl && cntR[j] === cr && sameLists(listL, listR, j, k, cl, cr, need)) {
          repeated = true;
          break;
        }
      }
      if (repeated) continue;
      bitsTried[tried++] = k;
      const base = k * need;
      const from = Math.max(need - cr, 0);
      const to = Math.min(cl, need);
      if (anchorRequired === 0) {
        for (let l = from; l <= to; l++) {
          const r = need - l;
          const hi = r > 0 ? pMean[listR[base + r - 1]!]! : meanA;
          const lo = l > 0 ? pMean[listL[base + l - 1]!]! : meanA;
          cSpread[nc] = hi - lo;
          cRequired[nc] = 0;
          cBit[nc] = k;
          cLeft[nc] = l;
          cDone[nc] = 0;
          nc++;
        }
      } else {
        prefixOldL[0] = Number.POSITIVE_INFINITY;
        for (let i = 0; i < to; i++) prefixOldL[i + 1] = Math.min(prefixOldL[i]!, pOldest[listL[base + i]!]!);
        prefixOldR[0] = Number.POSITIVE_INFINITY;
        const rTo = need - from;
        for (let i = 0; i < rTo; i++)
          prefixOldR[i + 1] = Math.min(prefixOldR[i]!, pOldest[listR[base + i]!]!);
        for (let l = from; l <= to; l++) {
          const r = need - l;
          const hi = r > 0 ? pMean[listR[base + r - 1]!]! : meanA;
          const lo = l > 0 ? pMean[listL[base + l - 1]!]! : meanA;
          const spread = hi - lo;
          let req = anchorRequired;
          const oldest = Math.min(anchorOld, prefixOldL[l]!, prefixOldR[r]!);
          if (oldest !== anchorOld) {
            const wait = Math.max(now - oldest, 0);
            req = requiredScore(wait, targetWaitingTime, wait >= maxWaitingTime);
          }
          if (req === anchorRequired ? spread > maxDistance : scoreBound(spread, tolerance) < req) continue;
          cSpread[nc] = spread;
          cRequired[nc] = req;
          cBit[nc] = k;
          cLeft[nc] = l;
          cDone[nc] = 0;
          nc++;
        }
      }
    }
    if (nc === 0) continue;
    if (anchorRequired === 0 && nc > 1) {
      // Every candidate is acceptable, so the smallest spread's window scores at least
      // 1 / (1 + (s/tol)^2 · pruneFactor) (its teams' imbalance is at most s / imbalanceDivisor);
      // candidates whose bound cannot beat that are never evaluated, so drop them now.
      let minSpread = Number.POSITIVE_INFINITY;
      for (let c = 0; c < nc; c++) if (cSpread[c]! < minSpread) minSpread = cSpread[c]!;
      const limit = minSpread * minSpread * pruneFactor;
      let kept = 0;
      for (let c = 0; c < nc; c++) {
        const spread = cSpread[c]!;
        if (spread * spread > limit) continue;
        cSpread[kept] = spread;
        cRequired[kept] = 0;
        cBit[kept] = cBit[c]!;
        cLeft[kept++] = cLeft[c]!;
      }
      nc = kept;
    }

    // Best acceptable candidate: smallest spread first; the spread bounds the score, so stop once
    // no remaining candidate can beat the best one found.
    let bestScore = -1;
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
      const bound = scoreBound(pickSpread, tolerance);
      if (bound <= bestScore) break;
      const k = cBit[pick]!;
      const l = cLeft[pick]!;
      const r = need - l;
      let duplicate = false;
      for (let e = 0; e < evaluated; e++) {
        if (eSpread[e] === pickSpread && eLeft[e] === l && sameLists(listL, listR, eBit[e]!, k, l, r, need)) {
          duplicate = true;
          break;
        }
      }
      if (duplicate) continue;
      eSpread[evaluated] = pickSpread;
      eLeft[evaluated] = l;
      eBit[evaluated++] = k;

      const base = k * need;
      let length = 0;
      for (let i = l - 1; i >= 0; i--) win[length++] = listL[base + i]!;
      win[length++] = a;
      for (let i = 0; i < r; i++) win[length++] = listR[base + i]!;
      let score = bound;
      if (needsBalance) {
        for (let i = 0; i < length; i++) {
          winSize[i] = 1;
          winSum[i] = pMean[win[i]!]!;
        }
        const imbalance = balanceTeams(length, winSize, winSum, teams, perTeam, winTeam);
        if (imbalance < 0) continue;
        score = matchScore(pickSpread, imbalance, tolerance);
      } else if (teams === 1) {
        for (let i = 0; i < length; i++) winTeam[i] = 0;
      } else {
        for (let i = 0; i < length; i++) winTeam[i] = i;
      }
      if (score >= cRequired[pick]! && score > bestScore) {
        bestScore = score;
        for (let i = 0; i < length; i++) {
          bestWin[i] = win[i]!;
          bestTeam[i] = winTeam[i]!;
        }
        if (score === bound) break;
      }
    }
    if (bestScore < 0) continue;

    for (let i = 0; i < matchSize; i++) {
      const p = bestWin[i]!;
      used[p] = 1;
      const before = prev[p]!;
      const after = next[p]!;
      if (before >= 0) next[before] = after;
      if (after >= 0) prev[after] = before;
      outUnits[outLength] = order[p]!;
      outTeam[outLength++] = bestTeam[i]!;
    }
    outScore[outCount] = bestScore;
    outStart[++outCount] = outLength;
  }
  out.count = outCount;
  return out;
}
