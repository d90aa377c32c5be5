/**
 * The general match search (see ALGORITHM.md §4): parties, and requests with more than 32 servers.
 * Units are taken as anchors oldest first; each anchor looks at its nearest free neighbours in
 * rating order (same constraint group), forms for every server it can use the windows of exactly one
 * match's worth of players around itself, and keeps the window with the best match score among those
 * its waiting time allows. Cost per anchor is bounded (O(k · servers) with k a small multiple of the
 * match size), so the whole search is O(n·k).
 *
 * One `GeneralSearch` runs one search; each step of an anchor is a method over its arrays:
 * `collectNeighbours` → `collectCandidates` (per server: `contiguousCandidates`, `fallbackCandidate`)
 * → `chooseBest` → `MatchOutput.record`.
 */
import { ArrayArena } from "./array-arena.js";
import { type FreeLinks, linkFreeUnits, MatchOutput } from "./free-units.js";
import { fmix } from "./hash-mix.js";
import {
  choiceCost,
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
import type { TeamBalancer } from "./team-balancing.js";
import type { FoundMatches, SearchSettings } from "./types.js";

/** The search's arrays come from `arrays` (valid until its next reset); an empty arena allocates them. */
export function searchMatchesGeneral(
  model: QueueModel,
  settings: SearchSettings,
  balancer: TeamBalancer,
  arrays: ArrayArena = new ArrayArena(),
): FoundMatches {
  return new GeneralSearch(model, settings, balancer, arrays).run();
}

class GeneralSearch {
  private readonly matchSize: number;
  private readonly needsBalance: boolean;
  private readonly order: Int32Array;
  /** Position of each unit in the rating order. */
  private readonly pos: Int32Array;
  private readonly links: FreeLinks;
  // Unit data copied into rating order (p: by position in it), so scanning neighbours reads
  // contiguous memory.
  private readonly pSize: Int32Array;
  private readonly pMean: Float64Array;
  private readonly pMin: Float64Array;
  private readonly pMax: Float64Array;
  private readonly pSum: Float64Array;
  private readonly pOldest: Float64Array;
  private readonly pMask: Int32Array | undefined;

  private readonly keep: number;
  private readonly scanCap: number;
  // The anchor's nearest compatible free neighbours on each side, nearest first, and the bits of
  // the servers each shares with it.
  private readonly leftUnit: Int32Array;
  private readonly leftMask: Int32Array;
  private readonly rightUnit: Int32Array;
  private readonly rightMask: Int32Array;
  private leftNeighbourCount = 0;
  private rightNeighbourCount = 0;

  // For one server at a time: the neighbours on each side that can use it, nearest first (also the
  // windows' scratch), and prefix aggregates over them, entry k covering the nearest k: players,
  // lowest and highest rating, oldest join, and the window signature (leftHash1 and so on).
  private readonly leftOnServer: Int32Array;
  private readonly rightOnServer: Int32Array;
  private readonly leftPlayers: Int32Array;
  private readonly rightPlayers: Int32Array;
  private readonly leftMin: Float64Array;
  private readonly leftMax: Float64Array;
  private readonly rightMin: Float64Array;
  private readonly rightMax: Float64Array;
  private readonly leftOldest: Float64Array;
  private readonly rightOldest: Float64Array;
  // Signatures of the neighbour positions a window takes, to skip windows already evaluated: two
  // independent hashes per position on each side (…PositionHash), and their prefix sums (…Hash).
  private readonly leftPositionHash1: Int32Array;
  private readonly leftPositionHash2: Int32Array;
  private readonly rightPositionHash1: Int32Array;
  private readonly rightPositionHash2: Int32Array;
  private readonly leftHash1: Int32Array;
  private readonly leftHash2: Int32Array;
  private readonly rightHash1: Int32Array;
  private readonly rightHash2: Int32Array;

  // Candidate windows of the current anchor.
  private readonly candidateCap: number;
  private readonly candidateSpread: Float64Array;
  private readonly candidateRequired: Float64Array;
  private readonly candidateBit: Int32Array;
  /** 1 for a near-contiguous window (one player more, one inner player to leave out; near-windows.ts). */
  private readonly candidateNear: Uint8Array;
  /** Left and right neighbour counts of a contiguous window; -1 for a nearest-fit window. */
  private readonly candidateLeft: Int32Array;
  private readonly candidateRight: Int32Array;
  private readonly candidateHash1: Int32Array;
  private readonly candidateHash2: Int32Array;
  private readonly candidateDone: Uint8Array;
  /** The signatures of the windows of each server tried for the anchor (same windows: skipped). */
  private readonly serverHash1: Int32Array;
  private readonly serverHash2: Int32Array;
  /** The signatures of the candidates evaluated for the anchor. */
  private readonly seenHash1: Int32Array;
  private readonly seenHash2: Int32Array;
  private candidateCount = 0;

  private readonly win: Int32Array;
  private readonly winSize: Int32Array;
  private readonly winSum: Float64Array;
  private readonly winTeam: Int32Array;
  private readonly bestWin: Int32Array;
  private readonly bestTeam: Int32Array;
  /** Whether near-contiguous windows are tried; then each side keeps one player more per server. */
  private readonly nearWindows: boolean;
  private readonly near: NearWindows;
  /** Whether an anchor past its target wait also tries any three free singles (2v2; past-target-groups.ts). */
  private readonly pastTargetGroups: boolean;
  private readonly past = new PastTargetGroups();
  private pastAnchor = 0;
  /** A free unit's server bits shared with `pastAnchor`, 0 unless it is a single ticket. */
  private readonly pastCompatible = (p: number): number =>
    this.pSize[p] === 1 ? this.maskOf(p, this.pastAnchor) & this.anchorMask : 0;

  // Without a global bit per server (more than 32 servers), bits index the anchor's own servers.
  private readonly localStamp: Int32Array;
  private readonly localBit: Int32Array;

  // The current anchor.
  private need = 0;
  private anchorRequired = 0;
  /** The anchor's `spreadWeight`. */
  private weight = 1;
  private maxDistance = 0;
  private anchorMask = 0;

  constructor(
    private readonly model: QueueModel,
    private readonly settings: SearchSettings,
    private readonly balancer: TeamBalancer,
    private readonly arrays: ArrayArena,
  ) {
    const { teams, perTeam } = settings;
    const matchSize = teams * perTeam;
    this.matchSize = matchSize;
    this.needsBalance = teams >= 2 && perTeam >= 2;
    const order = model.ratingOrder;
    const length = order.length;
    this.order = order;
    this.pos = arrays.int32(model.unitCount);
    this.links = { prev: arrays.int32(length), next: arrays.int32(length), used: arrays.uint8(length) };
    linkFreeUnits(order, length, model.unitGroup, this.links);
    this.pSize = arrays.int32(length);
    this.pMean = arrays.float64(length);
    this.pMin = arrays.float64(length);
    this.pMax = arrays.float64(length);
    this.pSum = arrays.float64(length);
    this.pOldest = arrays.float64(length);
    const globalMask = model.unitServerMask;
    this.pMask = globalMask === undefined ? undefined : arrays.int32(length);
    for (let i = 0; i < length; i++) {
      const u = order[i]!;
      this.pos[u] = i;
      this.pSize[i] = model.unitSize[u]!;
      this.pMean[i] = model.unitMean[u]!;
      this.pMin[i] = model.unitMin[u]!;
      this.pMax[i] = model.unitMax[u]!;
      this.pSum[i] = model.unitSum[u]!;
      this.pOldest[i] = model.unitOldest[u]!;
      if (this.pMask !== undefined && globalMask !== undefined) this.pMask[i] = globalMask[u]!;
    }

    const { keep, scanCap } = neighbourLimits(matchSize);
    this.keep = keep;
    this.scanCap = scanCap;
    this.leftUnit = arrays.int32(keep);
    this.leftMask = arrays.int32(keep);
    this.rightUnit = arrays.int32(keep);
    this.rightMask = arrays.int32(keep);
    this.leftOnServer = arrays.int32(keep);
    this.rightOnServer = arrays.int32(keep);
    this.leftPlayers = arrays.int32(keep + 1);
    this.rightPlayers = arrays.int32(keep + 1);
    this.leftMin = arrays.float64(keep + 1);
    this.leftMax = arrays.float64(keep + 1);
    this.rightMin = arrays.float64(keep + 1);
    this.rightMax = arrays.float64(keep + 1);
    this.leftOldest = arrays.float64(keep + 1);
    this.rightOldest = arrays.float64(keep + 1);
    this.leftPositionHash1 = arrays.int32(keep);
    this.leftPositionHash2 = arrays.int32(keep);
    this.rightPositionHash1 = arrays.int32(keep);
    this.rightPositionHash2 = arrays.int32(keep);
    for (let i = 0; i < keep; i++) {
      this.leftPositionHash1[i] = fmix(i + 0x5bd1e995);
      this.leftPositionHash2[i] = fmix(Math.imul(i, 0x27d4eb2d) + 0x165667b1);
      this.rightPositionHash1[i] = fmix(i + 0x1b873593);
      this.rightPositionHash2[i] = fmix(Math.imul(i, 0x9e3779b1) + 0x7feb352d);
    }
    this.leftHash1 = arrays.int32(keep + 1);
    this.leftHash2 = arrays.int32(keep + 1);
    this.rightHash1 = arrays.int32(keep + 1);
    this.rightHash2 = arrays.int32(keep + 1);

    this.nearWindows = nearWindowsApply(teams, perTeam);
    this.near = new NearWindows(this.nearWindows ? matchSize : 0);
    this.pastTargetGroups = pastTargetGroupsApply(teams, perTeam);
    const candidateCap = SERVER_BITS * (2 * matchSize + 3);
    this.candidateCap = candidateCap;
    this.candidateSpread = arrays.float64(candidateCap);
    this.candidateRequired = arrays.float64(candidateCap);
    this.candidateBit = arrays.int32(candidateCap);
    this.candidateLeft = arrays.int32(candidateCap);
    this.candidateRight = arrays.int32(candidateCap);
    this.candidateHash1 = arrays.int32(candidateCap);
    this.candidateHash2 = arrays.int32(candidateCap);
    this.candidateDone = arrays.uint8(candidateCap);
    this.candidateNear = arrays.uint8(candidateCap);
    this.serverHash1 = arrays.int32(SERVER_BITS);
    this.serverHash2 = arrays.int32(SERVER_BITS);
    this.seenHash1 = arrays.int32(candidateCap);
    this.seenHash2 = arrays.int32(candidateCap);

    this.win = arrays.int32(matchSize + 1);
    this.winSize = arrays.int32(matchSize);
    this.winSum = arrays.float64(matchSize);
    this.winTeam = arrays.int32(matchSize);
    this.bestWin = arrays.int32(matchSize);
    this.bestTeam = arrays.int32(matchSize);

    const serverCount = model.serverNames.length;
    this.localStamp = globalMask === undefined ? arrays.int32(serverCount).fill(-1) : arrays.int32(0);
    this.localBit = globalMask === undefined ? arrays.int32(serverCount) : arrays.int32(0);
  }

  run(): FoundMatches {
    const output = new MatchOutput(this.order, this.order.length, this.order.length, this.arrays);
    const anchors = this.model.anchorOrder;
    for (let ai = 0; ai < anchors.length; ai++) {
      const a = this.pos[anchors[ai]!]!;
      if (this.links.used[a] === 1) continue;
      this.startAnchor(a);
      this.collectNeighbours(a);
      if (this.collectCandidates(a) === 0) continue;
      const { score, length } = this.chooseBest(a);
      if (score < 0) continue;
      output.record(this.links, this.bestWin, this.bestTeam, length, score);
    }
    return output.result();
  }

  private required(oldest: number): number {
    const { now, targetWaitingTime, maxWaitingTime } = this.settings;
    const wait = Math.max(now - oldest, 0);
    return requiredScore(wait, targetWaitingTime, wait >= maxWaitingTime);
  }

  /** The anchor's requirement, its spread weight, the largest spread it allows, and its server bits. */
  private startAnchor(a: number): void {
    const { tolerance } = this.settings;
    this.need = this.matchSize - this.pSize[a]!;
    this.anchorRequired = this.required(this.pOldest[a]!);
    this.weight = unitSpreadWeight(this.model, this.order[a]!, this.settings);
    this.maxDistance = maxSpreadFor(this.anchorRequired, tolerance, this.weight);
    if (this.pMask !== undefined) {
      this.anchorMask = this.pMask[a]!;
      return;
    }
    const { unitServerStart, unitServerId } = this.model;
    let mask = 0;
    const au = this.order[a]!;
    const end = Math.min(unitServerStart[au + 1]!, unitServerStart[au]! + SERVER_BITS);
    for (let e = unitServerStart[au]!, bit = 0; e < end; e++, bit++) {
      const s = unitServerId[e]!;
      this.localStamp[s] = a;
      this.localBit[s] = bit;
      mask |= 1 << bit;
    }
    this.anchorMask = mask;
  }

  private maskOf(p: number, anchor: number): number {
    if (this.pMask !== undefined) return this.pMask[p]!;
    const { unitServerStart, unitServerId } = this.model;
    const u = this.order[p]!;
    let bits = 0;
    for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++) {
      const s = unitServerId[e]!;
      if (this.localStamp[s] === anchor) bits |= 1 << this.localBit[s]!;
    }
    return bits;
  }

  /** The nearest free neighbours on each side that fit and share a server with the anchor. */
  private collectNeighbours(a: number): void {
    const { prev, next } = this.links;
    const { pMean, pSize, keep, scanCap, need, maxDistance, anchorMask } = this;
    const meanA = pMean[a]!;
    let leftNeighbourCount = 0;
    let rightNeighbourCount = 0;
    if (need > 0) {
      for (
        let u = prev[a]!, steps = 0;
        u >= 0 && leftNeighbourCount < keep && steps < scanCap;
        u = prev[u]!, steps++
      ) {
        if (meanA - pMean[u]! > maxDistance) break;
        if (pSize[u]! > need) continue;
        const bits = this.maskOf(u, a) & anchorMask;
        if (bits === 0) continue;
        this.leftUnit[leftNeighbourCount] = u;
        this.leftMask[leftNeighbourCount++] = bits;
      }
      for (
        let u = next[a]!, steps = 0;
        u >= 0 && rightNeighbourCount < keep && steps < scanCap;
        u = next[u]!, steps++
      ) {
        if (pMean[u]! - meanA > maxDistance) break;
        if (pSize[u]! > need) continue;
        const bits = this.maskOf(u, a) & anchorMask;
        if (bits === 0) continue;
        this.rightUnit[rightNeighbourCount] = u;
        this.rightMask[rightNeighbourCount++] = bits;
      }
    }
    this.leftNeighbourCount = leftNeighbourCount;
    this.rightNeighbourCount = rightNeighbourCount;
  }

  /** Candidate windows per server the anchor can use; returns how many were kept. */
  private collectCandidates(a: number): number {
    this.candidateCount = 0;
    let bitsSeen = 0;
    for (let bits = this.anchorMask; bits !== 0; ) {
      const low = bits & -bits;
      bits ^= low;
      const leftOnServerCount = this.prefixes(
        low,
        this.leftUnit,
        this.leftMask,
        this.leftNeighbourCount,
        this.leftOnServer,
        this.leftPlayers,
        this.leftMin,
        this.leftMax,
        this.leftOldest,
        this.leftHash1,
        this.leftHash2,
        this.leftPositionHash1,
        this.leftPositionHash2,
      );
      const rightOnServerCount = this.prefixes(
        low,
        this.rightUnit,
        this.rightMask,
        this.rightNeighbourCount,
        this.rightOnServer,
        this.rightPlayers,
        this.rightMin,
        this.rightMax,
        this.rightOldest,
        this.rightHash1,
        this.rightHash2,
        this.rightPositionHash1,
        this.rightPositionHash2,
      );
      if (this.leftPlayers[leftOnServerCount]! + this.rightPlayers[rightOnServerCount]! < this.need) continue;
      // Another server with the same nearest neighbours gives the same windows: skip it. (With
      // parties the fallback below looks further, so every server is tried.)
      if (!this.model.hasParties) {
        const h1 =
          (this.leftHash1[leftOnServerCount]! + Math.imul(3, this.rightHash1[rightOnServerCount]!)) | 0;
        const h2 =
          (this.leftHash2[leftOnServerCount]! + Math.imul(5, this.rightHash2[rightOnServerCount]!)) | 0;
        let repeated = false;
        for (let k = 0; k < bitsSeen; k++) {
          if (this.serverHash1[k] === h1 && this.serverHash2[k] === h2) {
            repeated = true;
            break;
          }
        }
        if (repeated) continue;
        this.serverHash1[bitsSeen] = h1;
        this.serverHash2[bitsSeen++] = h2;
      }
      const found = this.contiguousCandidates(a, low, leftOnServerCount, rightOnServerCount);
      if (this.nearWindows) this.nearCandidates(a, low, leftOnServerCount, rightOnServerCount);
      // Parties can make every contiguous split miss the exact size: fall back to nearest-fit growth.
      if (!found && this.model.hasParties && this.candidateCount < this.candidateCap)
        this.fallbackCandidate(a, low);
      if (this.need === 0) break;
    }
    return this.candidateCount;
  }

  /**
   * Prefix aggregates (players, min, max, oldest join, signature) of one side's neighbours that can
   * use the server `bit`, nearest first, until the missing players are covered; returns their count.
   */
  private prefixes(
    bit: number,
    unit: Int32Array,
    mask: Int32Array,
    count: number,
    taken: Int32Array,
    size: Int32Array,
    min: Float64Array,
    max: Float64Array,
    old: Float64Array,
    h1: Int32Array,
    h2: Int32Array,
    positionH1: Int32Array,
    positionH2: Int32Array,
  ): number {
    const { pSize, pMin, pMax, pOldest } = this;
    const need = this.nearWindows ? this.need + 1 : this.need;
    let n = 0;
    min[0] = Number.POSITIVE_INFINITY;
    max[0] = Number.NEGATIVE_INFINITY;
    old[0] = Number.POSITIVE_INFINITY;
    for (let i = 0; i < count && size[n]! < need; i++) {
      if ((mask[i]! & bit) === 0) continue;
      const u = unit[i]!;
      taken[n] = u;
      size[n + 1] = size[n]! + pSize[u]!;
      min[n + 1] = Math.min(min[n]!, pMin[u]!);
      max[n + 1] = Math.max(max[n]!, pMax[u]!);
      old[n + 1] = Math.min(old[n]!, pOldest[u]!);
      h1[n + 1] = (h1[n]! + positionH1[i]!) | 0;
      h2[n + 1] = (h2[n]! + positionH2[i]!) | 0;
      n++;
    }
    return n;
  }

  /**
   * Every split of the missing players between the two sides whose sizes add up exactly; keeps those
   * the requirement allows. Returns whether any split had the exact size.
   */
  private contiguousCandidates(
    a: number,
    low: number,
    leftOnServerCount: number,
    rightOnServerCount: number,
  ): boolean {
    const {
      leftPlayers,
      rightPlayers,
      leftMin,
      leftMax,
      rightMin,
      rightMax,
      leftOldest,
      rightOldest,
      leftHash1,
      leftHash2,
      rightHash1,
      rightHash2,
      need,
      anchorRequired,
    } = this;
    const anchorMin = this.pMin[a]!;
    const anchorMax = this.pMax[a]!;
    const anchorOld = this.pOldest[a]!;
    const tolerance = this.settings.tolerance;
    let found = false;
    let b = rightOnServerCount;
    while (b > 0 && rightPlayers[b]! > need) b--;
    for (let l = 0; l <= leftOnServerCount; l++) {
      const taken = leftPlayers[l]!;
      if (taken > need) break;
      const rest = need - taken;
      while (b > 0 && rightPlayers[b]! > rest) b--;
      if (rightPlayers[b] !== rest) continue;
      const spread =
        Math.max(anchorMax, leftMax[l]!, rightMax[b]!) - Math.min(anchorMin, leftMin[l]!, rightMin[b]!);
      found = true;
      // The anchor is usually the oldest ticket of its windows (anchors go oldest first), so its
      // own requirement, as a largest spread, settles most windows without computing a score.
      let req = anchorRequired;
      if (anchorRequired > 0) {
        const oldest = Math.min(anchorOld, leftOldest[l]!, rightOldest[b]!);
        if (oldest !== anchorOld) req = this.required(oldest);
      }
      if (
        req === anchorRequired ? spread > this.maxDistance : scoreBound(spread, tolerance, this.weight) < req
      )
        continue;
      if (this.candidateCount === this.candidateCap) continue;
      this.addCandidate(
        spread,
        req,
        low,
        l,
        b,
        (leftHash1[l]! + rightHash1[b]!) | 0,
        (leftHash2[l]! + rightHash2[b]!) | 0,
      );
    }
    return found;
  }

  /**
   * The windows of one player more than a match around the anchor (single tickets only), kept when the
   * most lenient requirement of their subsets (their oldest ticket's) allows their spread.
   */
  private nearCandidates(
    a: number,
    low: number,
    leftOnServerCount: number,
    rightOnServerCount: number,
  ): void {
    const { leftMin, leftMax, rightMin, rightMax, leftOldest, rightOldest, anchorRequired } = this;
    const span = this.need + 1;
    if (this.pSize[a] !== 1 || leftOnServerCount + rightOnServerCount < span) return;
    const { leftPlayers, rightPlayers } = this;
    const anchorMin = this.pMin[a]!;
    const anchorMax = this.pMax[a]!;
    const anchorOld = this.pOldest[a]!;
    const tolerance = this.settings.tolerance;
    for (let l = Math.max(span - rightOnServerCount, 0); l <= Math.min(leftOnServerCount, span); l++) {
      const r = span - l;
      // Only windows of single tickets are widened (a party's members cannot be left out one by one).
      if (leftPlayers[l] !== l || rightPlayers[r] !== r) continue;
      const spread =
        Math.max(anchorMax, leftMax[l]!, rightMax[r]!) - Math.min(anchorMin, leftMin[l]!, rightMin[r]!);
      let req = anchorRequired;
      if (anchorRequired > 0) {
        const oldest = Math.min(anchorOld, leftOldest[l]!, rightOldest[r]!);
        if (oldest !== anchorOld) req = this.required(oldest);
      }
      if (
        req === anchorRequired ? spread > this.maxDistance : scoreBound(spread, tolerance, this.weight) < req
      )
        continue;
      if (this.candidateCount === this.candidateCap) continue;
      this.addCandidate(spread, req, low, l, r, 0, 0);
      this.candidateNear[this.candidateCount - 1] = 1;
    }
  }

  /** The nearest-fit window on server `low`, when the requirement allows it. */
  private fallbackCandidate(a: number, low: number): void {
    const length = this.greedyWindow(a, low);
    if (length === 0) return;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let oldest = Number.POSITIVE_INFINITY;
    let h1 = 0;
    let h2 = 0;
    for (let i = 0; i < length; i++) {
      const u = this.win[i]!;
      min = Math.min(min, this.pMin[u]!);
      max = Math.max(max, this.pMax[u]!);
      oldest = Math.min(oldest, this.pOldest[u]!);
      h1 = (h1 + fmix(u ^ 0x2c1b3c6d)) | 0;
      h2 = (h2 + fmix(Math.imul(u, 0x297a2d39) + 0x68e31da4)) | 0;
    }
    const req = this.required(oldest);
    if (scoreBound(max - min, this.settings.tolerance, this.weight) >= req)
      this.addCandidate(max - min, req, low, -1, -1, h1, h2);
  }

  private addCandidate(
    spread: number,
    req: number,
    bit: number,
    left: number,
    right: number,
    h1: number,
    h2: number,
  ): void {
    const c = this.candidateCount++;
    this.candidateSpread[c] = spread;
    this.candidateRequired[c] = req;
    this.candidateBit[c] = bit;
    this.candidateLeft[c] = left;
    this.candidateRight[c] = right;
    this.candidateHash1[c] = h1;
    this.candidateHash2[c] = h2;
    this.candidateDone[c] = 0;
    this.candidateNear[c] = 0;
  }

  /**
   * The best acceptable candidate (the lowest `choiceCost`), written to `bestWin`/`bestTeam`: smallest
   * spread first; the cost is at least the spread, so stop once no remaining candidate can beat the
   * best one found.
   */
  private chooseBest(a: number): { score: number; length: number } {
    const {
      candidateSpread,
      candidateDone,
      candidateHash1,
      candidateHash2,
      seenHash1,
      seenHash2,
      win,
      winSize,
      winSum,
      winTeam,
      candidateCount,
    } = this;
    const { teams, perTeam, tolerance } = this.settings;
    const weight = this.weight;
    let bestScore = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    let bestLength = 0;
    let seen = 0;
    for (;;) {
      let pick = -1;
      for (let c = 0; c < candidateCount; c++) {
        if (candidateDone[c] === 0 && (pick < 0 || candidateSpread[c]! < candidateSpread[pick]!)) pick = c;
      }
      if (pick < 0) break;
      candidateDone[pick] = 1;
      if (weight * candidateSpread[pick]! >= bestCost) break;
      if (this.candidateNear[pick] === 1) {
        const left = this.candidateLeft[pick]!;
        const length = this.contiguousWindow(a, this.candidateBit[pick]!, left, this.candidateRight[pick]!);
        this.near.full.set(win.subarray(0, length));
        const cost = this.near.evaluate(
          this.matchSize,
          left,
          this.anchorRequired,
          this.pSum,
          this.pOldest,
          candidateSpread[pick]!,
          weight,
          this.settings,
          this.balancer,
          bestCost,
          this.bestWin,
          this.bestTeam,
        );
        if (cost < bestCost) {
          bestCost = cost;
          bestScore = this.near.score;
          bestLength = this.matchSize;
        }
        continue;
      }
      const bound = scoreBound(candidateSpread[pick]!, tolerance, weight);
      let duplicate = false;
      for (let i = 0; i < seen; i++) {
        if (seenHash1[i] === candidateHash1[pick] && seenHash2[i] === candidateHash2[pick]) {
          duplicate = true;
          break;
        }
      }
      if (duplicate) continue;
      seenHash1[seen] = candidateHash1[pick]!;
      seenHash2[seen++] = candidateHash2[pick]!;

      const length =
        this.candidateLeft[pick]! < 0
          ? this.greedyWindow(a, this.candidateBit[pick]!)
          : this.contiguousWindow(
              a,
              this.candidateBit[pick]!,
              this.candidateLeft[pick]!,
              this.candidateRight[pick]!,
            );
      let score = bound;
      let cost = weight * candidateSpread[pick]!;
      if (this.needsBalance) {
        for (let i = 0; i < length; i++) {
          winSize[i] = this.pSize[win[i]!]!;
          winSum[i] = this.pSum[win[i]!]!;
        }
        const beat = imbalanceToBeat(bestCost, candidateSpread[pick]!, weight);
        const imbalance = this.balancer.balance(length, winSize, winSum, teams, perTeam, winTeam, beat);
        if (imbalance < 0) continue;
        score = matchScore(candidateSpread[pick]!, imbalance, tolerance, weight);
        cost = choiceCost(candidateSpread[pick]!, imbalance, weight);
      } else if (teams === 1) {
        winTeam.fill(0, 0, length);
      } else {
        for (let i = 0; i < length; i++) winTeam[i] = i;
      }
      if (score >= this.candidateRequired[pick]! && cost < bestCost) {
        bestScore = score;
        bestCost = cost;
        bestLength = length;
        for (let i = 0; i < length; i++) {
          this.bestWin[i] = win[i]!;
          this.bestTeam[i] = winTeam[i]!;
        }
      }
    }
    if (this.pastTargetGroups && this.anchorRequired === 0 && this.pSize[a] === 1) {
      this.pastAnchor = a;
      const { prev, next } = this.links;
      const cost = this.past.evaluate(
        a,
        prev,
        next,
        this.pMean,
        this.pastCompatible,
        this.scanCap,
        tolerance,
        weight,
        bestCost,
        this.bestWin,
        this.bestTeam,
      );
      if (cost < bestCost) {
        bestScore = this.past.score;
        bestLength = this.matchSize;
      }
    }
    return { score: bestScore, length: bestLength };
  }

  /** Writes a contiguous split (its left and right neighbour counts on server `bit`) into `win`, in rating order. */
  private contiguousWindow(a: number, bit: number, leftCount: number, rightCount: number): number {
    const { win, leftOnServer, leftMask, leftUnit, rightMask, rightUnit } = this;
    let length = 0;
    let taken = 0;
    for (let i = 0; i < this.leftNeighbourCount && taken < leftCount; i++) {
      if ((leftMask[i]! & bit) !== 0) leftOnServer[taken++] = leftUnit[i]!;
    }
    for (let i = taken - 1; i >= 0; i--) win[length++] = leftOnServer[i]!;
    win[length++] = a;
    taken = 0;
    for (let i = 0; i < this.rightNeighbourCount && taken < rightCount; i++) {
      if ((rightMask[i]! & bit) !== 0) {
        win[length++] = rightUnit[i]!;
        taken++;
      }
    }
    return length;
  }

  /** Grows a window from the anchor, always taking the nearer neighbour that still fits; 0 if none fills. */
  private greedyWindow(a: number, bit: number): number {
    const {
      win,
      leftOnServer,
      rightOnServer,
      leftMask,
      leftUnit,
      rightMask,
      rightUnit,
      pMean,
      pSize,
      leftNeighbourCount,
      rightNeighbourCount,
    } = this;
    const meanA = pMean[a]!;
    let room = this.need;
    let i = 0;
    let j = 0;
    let nLeft = 0;
    let nRight = 0;
    while (room > 0) {
      while (i < leftNeighbourCount && ((leftMask[i]! & bit) === 0 || pSize[leftUnit[i]!]! > room)) i++;
      while (j < rightNeighbourCount && ((rightMask[j]! & bit) === 0 || pSize[rightUnit[j]!]! > room)) j++;
      if (i >= leftNeighbourCount && j >= rightNeighbourCount) return 0;
      const takeLeft =
        j >= rightNeighbourCount ||
        (i < leftNeighbourCount && meanA - pMean[leftUnit[i]!]! <= pMean[rightUnit[j]!]! - meanA);
      if (takeLeft) {
        leftOnServer[nLeft++] = leftUnit[i]!;
        room -= pSize[leftUnit[i++]!]!;
      } else {
        rightOnServer[nRight++] = rightUnit[j]!;
        room -= pSize[rightUnit[j++]!]!;
      }
    }
    let length = 0;
    for (let k = nLeft - 1; k >= 0; k--) win[length++] = leftOnServer[k]!;
    win[length++] = a;
    for (let k = 0; k < nRight; k++) win[length++] = rightOnServer[k]!;
    return length;
  }
}
