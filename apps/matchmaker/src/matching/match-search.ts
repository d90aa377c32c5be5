/**
 * The greedy match search (see ALGORITHM.md). Units are taken as anchors oldest first; each anchor
 * looks at its nearest free neighbours in rating order (same constraint group), forms for every server
 * it can use the contiguous windows of exactly one match's worth of players around itself, and keeps
 * the window with the best match score among those its waiting time allows. Cost per anchor is
 * bounded (O(k · servers) with k a small multiple of the match size), so the whole search is O(n·k).
 */

import { fmix } from "./hash-mix.js";
import { matchScore, maxSpreadFor, requiredScore, scoreBound } from "./match-quality.js";
import { searchSingles, singlesSearchApplies } from "./match-search-singles.js";
import type { QueueModel } from "./queue-model.js";
import { balanceTeams } from "./team-balancing.js";

export interface SearchSettings {
  teams: number;
  perTeam: number;
  now: number;
  targetWaitingTime: number;
  /** Infinity when the game mode has none. */
  maxWaitingTime: number;
  tolerance: number;
}

export interface FoundMatches {
  count: number;
  /** Units of match i are `units[unitStart[i] .. unitStart[i+1])`, in rating order. */
  unitStart: Int32Array;
  units: Int32Array;
  /** Team (0-based) of each entry of `units`. */
  unitTeam: Int32Array;
  score: Float64Array;
}

/** Free neighbours kept on each side of an anchor, per player of the match. */
const NEIGHBOURS_PER_PLAYER = 3;
const MIN_NEIGHBOURS = 8;
/** Units looked at on each side, per neighbour kept (skipping incompatible ones). */
const SCAN_PER_NEIGHBOUR = 4;
const LOCAL_SERVER_BITS = 32;

/** The search: the single-ticket fast path when it applies (same choices), else the general one. */
export function searchMatches(model: QueueModel, settings: SearchSettings): FoundMatches {
  return singlesSearchApplies(model, settings.teams, settings.perTeam)
    ? searchSingles(model, settings)
    : searchMatchesGeneral(model, settings);
}

/** The general search: parties, more than 32 servers. */
export function searchMatchesGeneral(model: QueueModel, settings: SearchSettings): FoundMatches {
  const { teams, perTeam, now, targetWaitingTime, maxWaitingTime, tolerance } = settings;
  const matchSize = teams * perTeam;
  const needsBalance = teams >= 2 && perTeam >= 2;
  const order = model.ratingOrder;
  const orderLength = order.length;
  const { unitSize, unitMean, unitMin, unitMax, unitOldest, unitSum, unitGroup } = model;
  const unitServerStart = model.unitServerStart;
  const unitServerId = model.unitServerId;
  const globalMask = model.unitServerMask;
  const hasParties = model.hasParties;

  // Doubly linked list of free units over the rating order, cut at constraint-group boundaries.
  const pos = new Int32Array(model.unitCount);
  const prev = new Int32Array(orderLength);
  const next = new Int32Array(orderLength);
  for (let i = 0; i < orderLength; i++) {
    const u = order[i]!;
    pos[u] = i;
    prev[i] = i > 0 && unitGroup[order[i - 1]!] === unitGroup[u] ? i - 1 : -1;
    next[i] = i + 1 < orderLength && unitGroup[order[i + 1]!] === unitGroup[u] ? i + 1 : -1;
  }
  // Unit data copied into rating order, so scanning neighbours reads contiguous memory.
  const pSize = new Int32Array(orderLength);
  const pMean = new Float64Array(orderLength);
  const pMin = new Float64Array(orderLength);
  const pMax = new Float64Array(orderLength);
  const pSum = new Float64Array(orderLength);
  const pOldest = new Float64Array(orderLength);
  const pMask = globalMask === undefined ? undefined : new Int32Array(orderLength);
  for (let i = 0; i < orderLength; i++) {
    const u = order[i]!;
    pSize[i] = unitSize[u]!;
    pMean[i] = unitMean[u]!;
    pMin[i] = unitMin[u]!;
    pMax[i] = unitMax[u]!;
    pSum[i] = unitSum[u]!;
    pOldest[i] = unitOldest[u]!;
    if (pMask !== undefined && globalMask !== undefined) pMask[i] = globalMask[u]!;
  }

  const keep = Math.max(MIN_NEIGHBOURS, NEIGHBOURS_PER_PLAYER * matchSize);
  const scanCap = SCAN_PER_NEIGHBOUR * keep;
  const leftUnit = new Int32Array(keep);
  const leftMask = new Int32Array(keep);
  const rightUnit = new Int32Array(keep);
  const rightMask = new Int32Array(keep);

  // Prefix aggregates of the neighbours that can use one server, nearest first.
  const lf = new Int32Array(keep);
  const rf = new Int32Array(keep);
  const ls = new Int32Array(keep + 1);
  const rs = new Int32Array(keep + 1);
  const lmin = new Float64Array(keep + 1);
  const lmax = new Float64Array(keep + 1);
  const rmin = new Float64Array(keep + 1);
  const rmax = new Float64Array(keep + 1);
  const lold = new Float64Array(keep + 1);
  const rold = new Float64Array(keep + 1);
  // Signatures of the neighbour positions a window takes, to skip windows already evaluated.
  const leftH1 = new Int32Array(keep);
  const leftH2 = new Int32Array(keep);
  const rightH1 = new Int32Array(keep);
  const rightH2 = new Int32Array(keep);
  for (let i = 0; i < keep; i++) {
    leftH1[i] = fmix(i + 0x5bd1e995);
    leftH2[i] = fmix(Math.imul(i, 0x27d4eb2d) + 0x165667b1);
    rightH1[i] = fmix(i + 0x1b873593);
    rightH2[i] = fmix(Math.imul(i, 0x9e3779b1) + 0x7feb352d);
  }
  const lh1 = new Int32Array(keep + 1);
  const lh2 = new Int32Array(keep + 1);
  const rh1 = new Int32Array(keep + 1);
  const rh2 = new Int32Array(keep + 1);

  const candidateCap = LOCAL_SERVER_BITS * (matchSize + 2);
  const cSpread = new Float64Array(candidateCap);
  const cRequired = new Float64Array(candidateCap);
  const cBit = new Int32Array(candidateCap);
  const cLeft = new Int32Array(candidateCap);
  const cRight = new Int32Array(candidateCap);
  const cH1 = new Int32Array(candidateCap);
  const cH2 = new Int32Array(candidateCap);
  const cDone = new Uint8Array(candidateCap);
  const bitH1 = new Int32Array(LOCAL_SERVER_BITS);
  const bitH2 = new Int32Array(LOCAL_SERVER_BITS);
  const seenH1 = new Int32Array(candidateCap);
  const seenH2 = new Int32Array(candidateCap);

  const win = new Int32Array(matchSize);
  const winSize = new Int32Array(matchSize);
  const winSum = new Float64Array(matchSize);
  const winTeam = new Int32Array(matchSize);
  const bestWin = new Int32Array(matchSize);
  const bestTeam = new Int32Array(matchSize);

  // Without a global bit per server (more than 32 servers), bits index the anchor's own servers.
  const serverCount = model.serverNames.length;
  const localStamp = globalMask === undefined ? new Int32Array(serverCount).fill(-1) : new Int32Array(0);
  const localBit = globalMask === undefined ? new Int32Array(serverCount) : new Int32Array(0);

  const maskOf = (p: number, anchor: number): number => {
    if (pMask !== undefined) return pMask[p]!;
    const u = order[p]!;
    let bits = 0;
    for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++) {
      const s = unitServerId[e]!;
      if (localStamp[s] === anchor) bits |= 1 << localBit[s]!;
    }
    return bits;
  };

  const required = (oldest: number): number => {
    const wait = Math.max(now - oldest, 0);
    return requiredScore(wait, targetWaitingTime, wait >= maxWaitingTime);
  };

  const out: FoundMatches = {
    count: 0,
    unitStart: new Int32Array(orderLength + 1),
    units: new Int32Array(orderLength),
    unitTeam: new Int32Array(orderLength),
    score: new Float64Array(orderLength),
  };
  let outUnits = 0;

  /** Writes candidate `c` (a contiguous split) into `win`, in rating order; returns its length. */
  function contiguousWindow(
    a: number,
    bit: number,
    leftCount: number,
    rightCount: number,
    nl: number,
    nr: number,
  ): number {
    let length = 0;
    let taken = 0;
    for (let i = 0; i < nl && taken < leftCount; i++) {
      if ((leftMask[i]! & bit) !== 0) {
        lf[taken++] = leftUnit[i]!;
      }
    }
    for (let i = taken - 1; i >= 0; i--) win[length++] = lf[i]!;
    win[length++] = a;
    taken = 0;
    for (let i = 0; i < nr && taken < rightCount; i++) {
      if ((rightMask[i]! & bit) !== 0) {
        win[length++] = rightUnit[i]!;
        taken++;
      }
    }
    return length;
  }

  /** Grows a window from the anchor, always taking the nearer neighbour that still fits. */
  function greedyWindow(a: number, bit: number, need: number, nl: number, nr: number): number {
    const meanA = pMean[a]!;
    let room = need;
    let i = 0;
    let j = 0;
    let nLeft = 0;
    let nRight = 0;
    while (room > 0) {
      while (i < nl && ((leftMask[i]! & bit) === 0 || pSize[leftUnit[i]!]! > room)) i++;
      while (j < nr && ((rightMask[j]! & bit) === 0 || pSize[rightUnit[j]!]! > room)) j++;
      if (i >= nl && j >= nr) return 0;
      const takeLeft = j >= nr || (i < nl && meanA - pMean[leftUnit[i]!]! <= pMean[rightUnit[j]!]! - meanA);
      if (takeLeft) {
        lf[nLeft++] = leftUnit[i]!;
        room -= pSize[leftUnit[i++]!]!;
      } else {
        rf[nRight++] = rightUnit[j]!;
        room -= pSize[rightUnit[j++]!]!;
      }
    }
    let length = 0;
    for (let k = nLeft - 1; k >= 0; k--) win[length++] = lf[k]!;
    win[length++] = a;
    for (let k = 0; k < nRight; k++) win[length++] = rf[k]!;
    return length;
  }

  const used = new Uint8Array(orderLength);
  const anchors = model.anchorOrder;
  for (let ai = 0; ai < anchors.length; ai++) {
    // From here on units are named by their position in the rating order.
    const a = pos[anchors[ai]!]!;
    if (used[a] === 1) continue;
    const need = matchSize - pSize[a]!;
    const meanA = pMean[a]!;
    const anchorOld = pOldest[a]!;
    const anchorRequired = required(anchorOld);
    const maxDistance = maxSpreadFor(anchorRequired, tolerance);

    let anchorMask: number;
    if (pMask !== undefined) {
      anchorMask = pMask[a]!;
    } else {
      anchorMask = 0;
      const au = order[a]!;
      const end = Math.min(unitServerStart[au + 1]!, unitServerStart[au]! + LOCAL_SERVER_BITS);
      for (let e = unitServerStart[au]!, bit = 0; e < end; e++, bit++) {
        const s = unitServerId[e]!;
        localStamp[s] = a;
        localBit[s] = bit;
        anchorMask |= 1 << bit;
      }
    }

    // Nearest free, compatible neighbours on each side.
    let nl = 0;
    let nr = 0;
    if (need > 0) {
      for (let u = prev[a]!, steps = 0; u >= 0 && nl < keep && steps < scanCap; u = prev[u]!, steps++) {
        if (meanA - pMean[u]! > maxDistance) break;
        if (pSize[u]! > need) continue;
        const bits = maskOf(u, a) & anchorMask;
        if (bits === 0) continue;
        leftUnit[nl] = u;
        leftMask[nl++] = bits;
      }
      for (let u = next[a]!, steps = 0; u >= 0 && nr < keep && steps < scanCap; u = next[u]!, steps++) {
        if (pMean[u]! - meanA > maxDistance) break;
        if (pSize[u]! > need) continue;
        const bits = maskOf(u, a) & anchorMask;
        if (bits === 0) continue;
        rightUnit[nr] = u;
        rightMask[nr++] = bits;
      }
    }

    // Candidate windows: per server, every split of the missing players between the two sides.
    let nc = 0;
    let bitsSeen = 0;
    const anchorMin = pMin[a]!;
    const anchorMax = pMax[a]!;
    for (let bits = anchorMask; bits !== 0; ) {
      const low = bits & -bits;
      bits ^= low;
      let nlf = 0;
      lmin[0] = Number.POSITIVE_INFINITY;
      lmax[0] = Number.NEGATIVE_INFINITY;
      lold[0] = Number.POSITIVE_INFINITY;
      for (let i = 0; i < nl && ls[nlf]! < need; i++) {
        if ((leftMask[i]! & low) === 0) continue;
        const u = leftUnit[i]!;
        lf[nlf] = u;
        ls[nlf + 1] = ls[nlf]! + pSize[u]!;
        lmin[nlf + 1] = Math.min(lmin[nlf]!, pMin[u]!);
        lmax[nlf + 1] = Math.max(lmax[nlf]!, pMax[u]!);
        lold[nlf + 1] = Math.min(lold[nlf]!, pOldest[u]!);
        lh1[nlf + 1] = (lh1[nlf]! + leftH1[i]!) | 0;
        lh2[nlf + 1] = (lh2[nlf]! + leftH2[i]!) | 0;
        nlf++;
      }
      let nrf = 0;
      rmin[0] = Number.POSITIVE_INFINITY;
      rmax[0] = Number.NEGATIVE_INFINITY;
      rold[0] = Number.POSITIVE_INFINITY;
      for (let i = 0; i < nr && rs[nrf]! < need; i++) {
        if ((rightMask[i]! & low) === 0) continue;
        const u = rightUnit[i]!;
        rf[nrf] = u;
        rs[nrf + 1] = rs[nrf]! + pSize[u]!;
        rmin[nrf + 1] = Math.min(rmin[nrf]!, pMin[u]!);
        rmax[nrf + 1] = Math.max(rmax[nrf]!, pMax[u]!);
        rold[nrf + 1] = Math.min(rold[nrf]!, pOldest[u]!);
        rh1[nrf + 1] = (rh1[nrf]! + rightH1[i]!) | 0;
        rh2[nrf + 1] = (rh2[nrf]! + rightH2[i]!) | 0;
        nrf++;
      }
      if (ls[nlf]! + rs[nrf]! < need) continue;
      // Another server with the same nearest neighbours gives the same windows: skip it. (With
      // parties the fallback below looks further, so every server is tried.)
      if (!hasParties) {
        const h1 = (lh1[nlf]! + Math.imul(3, rh1[nrf]!)) | 0;
        const h2 = (lh2[nlf]! + Math.imul(5, rh2[nrf]!)) | 0;
        let repeated = false;
        for (let k = 0; k < bitsSeen; k++) {
          if (bitH1[k] === h1 && bitH2[k] === h2) {
            repeated = true;
            break;
          }
        }
        if (repeated) continue;
        bitH1[bitsSeen] = h1;
        bitH2[bitsSeen++] = h2;
      }

      let found = false;
      let b = nrf;
      while (b > 0 && rs[b]! > need) b--;
      for (let l = 0; l <= nlf; l++) {
        const taken = ls[l]!;
        if (taken > need) break;
        const rest = need - taken;
        while (b > 0 && rs[b]! > rest) b--;
        if (rs[b] !== rest) continue;
        const spread = Math.max(anchorMax, lmax[l]!, rmax[b]!) - Math.min(anchorMin, lmin[l]!, rmin[b]!);
        found = true;
        // The anchor is usually the oldest ticket of its windows (anchors go oldest first), so its
        // own requirement, as a largest spread, settles most windows without computing a score.
        let req = anchorRequired;
        if (anchorRequired > 0) {
          const oldest = Math.min(anchorOld, lold[l]!, rold[b]!);
          if (oldest !== anchorOld) req = required(oldest);
        }
        if (req === anchorRequired ? spread > maxDistance : scoreBound(spread, tolerance) < req) continue;
        if (nc === candidateCap) continue;
        cSpread[nc] = spread;
        cRequired[nc] = req;
        cBit[nc] = low;
        cLeft[nc] = l;
        cRight[nc] = b;
        cH1[nc] = (lh1[l]! + rh1[b]!) | 0;
        cH2[nc] = (lh2[l]! + rh2[b]!) | 0;
        cDone[nc] = 0;
        nc++;
      }
      // Parties can make every contiguous split miss the exact size: fall back to nearest-fit growth.
      if (!found && hasParties && nc < candidateCap) {
        const len = greedyWindow(a, low, need, nl, nr);
        if (len > 0) {
          let min = Number.POSITIVE_INFINITY;
          let max = Number.NEGATIVE_INFINITY;
          let oldest = Number.POSITIVE_INFINITY;
          let h1 = 0;
          let h2 = 0;
          for (let i = 0; i < len; i++) {
            const u = win[i]!;
            min = Math.min(min, pMin[u]!);
            max = Math.max(max, pMax[u]!);
            oldest = Math.min(oldest, pOldest[u]!);
            h1 = (h1 + fmix(u ^ 0x2c1b3c6d)) | 0;
            h2 = (h2 + fmix(Math.imul(u, 0x297a2d39) + 0x68e31da4)) | 0;
          }
          const req = required(oldest);
          if (scoreBound(max - min, tolerance) >= req) {
            cSpread[nc] = max - min;
            cRequired[nc] = req;
            cBit[nc] = low;
            cLeft[nc] = -1;
            cRight[nc] = -1;
            cH1[nc] = h1;
            cH2[nc] = h2;
            cDone[nc] = 0;
            nc++;
          }
        }
      }
      if (need === 0) break;
    }
    if (nc === 0) continue;

    // Best acceptable candidate: smallest spread first; the spread bounds the score, so stop once
    // no remaining candidate can beat the best one found.
    let bestScore = -1;
    let bestLength = 0;
    let seen = 0;
    for (;;) {
      let pick = -1;
      for (let c = 0; c < nc; c++) {
        if (cDone[c] === 0 && (pick < 0 || cSpread[c]! < cSpread[pick]!)) pick = c;
      }
      if (pick < 0) break;
      cDone[pick] = 1;
      const bound = scoreBound(cSpread[pick]!, tolerance);
      if (bound <= bestScore) break;
      let duplicate = false;
      for (let i = 0; i < seen; i++) {
        if (seenH1[i] === cH1[pick] && seenH2[i] === cH2[pick]) {
          duplicate = true;
          break;
        }
      }
      if (duplicate) continue;
      seenH1[seen] = cH1[pick]!;
      seenH2[seen++] = cH2[pick]!;

      const length =
        cLeft[pick]! < 0
          ? greedyWindow(a, cBit[pick]!, need, nl, nr)
          : contiguousWindow(a, cBit[pick]!, cLeft[pick]!, cRight[pick]!, nl, nr);
      let score = bound;
      if (needsBalance) {
        for (let i = 0; i < length; i++) {
          winSize[i] = pSize[win[i]!]!;
          winSum[i] = pSum[win[i]!]!;
        }
        const imbalance = balanceTeams(length, winSize, winSum, teams, perTeam, winTeam);
        if (imbalance < 0) continue;
        score = matchScore(cSpread[pick]!, imbalance, tolerance);
      } else if (teams === 1) {
        winTeam.fill(0, 0, length);
      } else {
        for (let i = 0; i < length; i++) winTeam[i] = i;
      }
      if (score >= cRequired[pick]! && score > bestScore) {
        bestScore = score;
        bestLength = length;
        for (let i = 0; i < length; i++) {
          bestWin[i] = win[i]!;
          bestTeam[i] = winTeam[i]!;
        }
        // Nothing left can beat a window as good as its spread allows (the rest spread at least as much).
        if (score === bound) break;
      }
    }
    if (bestScore < 0) continue;

    for (let i = 0; i < bestLength; i++) {
      const p = bestWin[i]!;
      used[p] = 1;
      const before = prev[p]!;
      const after = next[p]!;
      if (before >= 0) next[before] = after;
      if (after >= 0) prev[after] = before;
      out.units[outUnits] = order[p]!;
      out.unitTeam[outUnits++] = bestTeam[i]!;
    }
    out.score[out.count] = bestScore;
    out.unitStart[++out.count] = outUnits;
  }
  return out;
}
