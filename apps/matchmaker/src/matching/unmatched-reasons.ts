/**
 * Why each unmatched ticket is still waiting (`?explain=true`). Computed after the search, only when
 * asked, from the queue model and the matches found; the search itself is untouched, so answers
 * without explain cost exactly what they did.
 *
 * The reasons are checked in order, and a ticket gets the first that holds:
 * 1. its unit can never be matched: `party-too-large`, `party-constraints-differ`,
 *    `no-shared-server`, `no-server-within-max-latency` (from the tickets themselves);
 * 2. `no-compatible-tickets`: no other matchable ticket of the whole request has the same
 *    constraints and shares a server with it;
 * 3. `not-enough-compatible-tickets`: among the tickets left unmatched, no server it can use has
 *    enough compatible players for a match, or none of their combinations fills a match exactly;
 * 4. `waiting-for-better-match`: a match could be formed from the tickets left unmatched, but the
 *    best one found (the nearest in rating on each usable server) scores below what the wait of its
 *    oldest ticket requires. Both scores are reported.
 */

import type { UnmatchedReason } from "@arena/contracts";
import { ArrayArena } from "./array-arena.js";
import { matchScore, requiredScore, unitSpreadWeight } from "./match-quality.js";
import { constraintKey, type QueueModel } from "./queue-model.js";
import type { TeamBalancer } from "./team-balancing.js";
import type { FoundMatches, MatchGameMode, MatchTicket, SearchSettings } from "./types.js";

/** Units looked at on each side of a ticket per player the match still needs (bounds the work). */
const SCAN_PER_PLAYER = 12;

const seconds = (s: number) => `${Math.round(s * 10) / 10} s`;
const score = (s: number) => Math.round(s * 1000) / 1000;

/** The reason for every unit that has at least one unmatched ticket (undefined for matched units). */
export function explainUnmatched(
  gameMode: MatchGameMode,
  tickets: readonly MatchTicket[],
  model: QueueModel,
  found: FoundMatches | undefined,
  settings: SearchSettings,
  balancer: TeamBalancer,
  arrays: ArrayArena = new ArrayArena(),
): (UnmatchedReason | undefined)[] {
  const { unitCount, unitSize, unitGroup, unitServerStart, unitServerId } = model;
  const matchSize = settings.teams * settings.perTeam;
  const reasons = new Array<UnmatchedReason | undefined>(unitCount);

  const matched = arrays.uint8(unitCount);
  if (found !== undefined) {
    for (let i = 0; i < found.unitStart[found.count]!; i++) matched[found.units[i]!] = 1;
  }
  const matchable = arrays.uint8(unitCount);
  for (const u of model.ratingOrder) matchable[u] = 1;

  for (let u = 0; u < unitCount; u++) {
    if (matchable[u] === 0) reasons[u] = unplaceableReason(gameMode, tickets, model, u);
  }

  // Players per (constraint group, server): among all matchable units, and among the free ones.
  const serverCount = model.serverNames.length;
  const allPlayers = new Map<number, number>();
  const freePlayers = new Map<number, number>();
  const groupUnits = new Map<number, number>();
  for (const u of model.ratingOrder) {
    const g = unitGroup[u]!;
    groupUnits.set(g, (groupUnits.get(g) ?? 0) + 1);
    for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++) {
      const key = g * serverCount + unitServerId[e]!;
      allPlayers.set(key, (allPlayers.get(key) ?? 0) + unitSize[u]!);
      if (matched[u] === 0) freePlayers.set(key, (freePlayers.get(key) ?? 0) + unitSize[u]!);
    }
  }

  // The free units in rating order (grouped by constraint group), for the nearest-window search.
  const free: number[] = [];
  const freePos = arrays.int32(unitCount).fill(-1);
  for (const u of model.ratingOrder) {
    if (matched[u] === 0) {
      freePos[u] = free.length;
      free.push(u);
    }
  }
  const window = new NearestWindow(model, settings, free, balancer);

  for (const u of free) {
    const g = unitGroup[u]!;
    let sharesWithAnother = false;
    let mostFree = 0;
    for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++) {
      const key = g * serverCount + unitServerId[e]!;
      if (allPlayers.get(key)! > unitSize[u]!) sharesWithAnother = true;
      mostFree = Math.max(mostFree, freePlayers.get(key) ?? 0);
    }
    if (!sharesWithAnother) {
      reasons[u] = {
        code: "no-compatible-tickets",
        detail:
          groupUnits.get(g) === 1
            ? "no other ticket in the queue has the same exactEqualityConstraints"
            : "no ticket with the same exactEqualityConstraints shares a server with it",
      };
      continue;
    }
    if (mostFree < matchSize) {
      reasons[u] = {
        code: "not-enough-compatible-tickets",
        detail: `at most ${mostFree} of the ${matchSize} players a match needs are waiting with the same constraints on a shared server`,
      };
      continue;
    }
    const best = window.best(freePos[u]!);
    if (best === undefined) {
      reasons[u] = {
        code: "not-enough-compatible-tickets",
        detail: `no combination of the compatible tickets waiting near its rating fills a match of ${matchSize} players exactly`,
      };
      continue;
    }
    reasons[u] = {
      code: "waiting-for-better-match",
      detail: `the best match available now scores ${score(best.score)}; at a wait of ${seconds(best.wait)} a match needs ${score(best.required)}`,
      requiredScore: score(best.required),
      bestScore: score(best.score),
    };
  }

  return reasons;
}

/** Why a unit that the model set aside can never be matched, from its tickets. */
function unplaceableReason(
  gameMode: MatchGameMode,
  tickets: readonly MatchTicket[],
  model: QueueModel,
  u: number,
): UnmatchedReason {
  const size = model.unitSize[u]!;
  const first = tickets[model.unitMembers[model.unitMemberStart[u]!]!]!;
  const party = first.partyId === undefined ? "" : ` ${JSON.stringify(first.partyId)}`;
  if (size > gameMode.numPlayersPerTeam) {
    return {
      code: "party-too-large",
      detail: `party${party} has ${size} tickets but a team holds ${gameMode.numPlayersPerTeam}`,
    };
  }
  let sameGroup = true;
  const from = model.unitMemberStart[u]!;
  const to = model.unitMemberStart[u + 1]!;
  // The model keeps groups per unit, so compare the members' canonical constraint keys.
  const firstKey = constraintKey(first.exactEqualityConstraints);
  for (let m = from + 1; m < to && sameGroup; m++) {
    sameGroup = constraintKey(tickets[model.unitMembers[m]!]!.exactEqualityConstraints) === firstKey;
  }
  if (!sameGroup) {
    return {
      code: "party-constraints-differ",
      detail: `the tickets of party${party} have different exactEqualityConstraints`,
    };
  }
  // No usable server: were there shared servers before maxLatency removed them?
  let shared: Set<string> | undefined;
  for (let m = from; m < to; m++) {
    const names = serverNamesOf(tickets[model.unitMembers[m]!]!);
    shared = shared === undefined ? new Set(names) : new Set(names.filter((n) => shared!.has(n)));
  }
  if (shared !== undefined && shared.size > 0) {
    return {
      code: "no-server-within-max-latency",
      detail:
        size > 1
          ? `every server the tickets of party${party} share is above maxLatency (${gameMode.maxLatency} ms)`
          : `every server of the ticket is above maxLatency (${gameMode.maxLatency} ms)`,
    };
  }
  return { code: "no-shared-server", detail: `the tickets of party${party} have no server in common` };
}

function serverNamesOf(ticket: MatchTicket): string[] {
  const servers = ticket.servers;
  return Array.isArray(servers) ? (servers as string[]) : Object.keys(servers);
}

interface WindowScore {
  score: number;
  required: number;
  /** Wait of the window's oldest ticket. */
  wait: number;
}

/**
 * The best match a free unit could be in now: for each server it can use, the window grown from
 * it by always taking the nearer free compatible unit (same group, that server, still fits), as
 * the search's own fallback does; scored with balanced teams.
 */
class NearestWindow {
  private readonly units: Int32Array;
  private readonly sizes: Int32Array;
  private readonly sums: Float64Array;
  private readonly teamOf: Int32Array;

  constructor(
    private readonly model: QueueModel,
    private readonly settings: SearchSettings,
    private readonly free: readonly number[],
    private readonly balancer: TeamBalancer,
  ) {
    const matchSize = settings.teams * settings.perTeam;
    this.units = new Int32Array(matchSize);
    this.sizes = new Int32Array(matchSize);
    this.sums = new Float64Array(matchSize);
    this.teamOf = new Int32Array(matchSize);
  }

  best(at: number): WindowScore | undefined {
    const { unitServerStart, unitServerId } = this.model;
    const u = this.free[at]!;
    let best: WindowScore | undefined;
    for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++) {
      const found = this.windowOn(at, unitServerId[e]!);
      if (found !== undefined && (best === undefined || found.score > best.score)) best = found;
    }
    return best;
  }

  private hasServer(u: number, server: number): boolean {
    const { unitServerStart, unitServerId } = this.model;
    for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++)
      if (unitServerId[e] === server) return true;
    return false;
  }

  private windowOn(at: number, server: number): WindowScore | undefined {
    const { unitSize, unitMean, unitMin, unitMax, unitOldest, unitSum, unitGroup } = this.model;
    const { teams, perTeam, now, targetWaitingTime, maxWaitingTime, tolerance } = this.settings;
    const free = this.free;
    const anchor = free[at]!;
    const group = unitGroup[anchor]!;
    const mean = unitMean[anchor]!;
    let room = teams * perTeam - unitSize[anchor]!;
    const scanCap = SCAN_PER_PLAYER * (room + 1);
    let count = 0;
    this.units[count++] = anchor;
    let left = at - 1;
    let right = at + 1;
    let steps = 0;
    const usable = (p: number) =>
      p >= 0 &&
      p < free.length &&
      unitGroup[free[p]!] === group &&
      unitSize[free[p]!]! <= room &&
      this.hasServer(free[p]!, server);
    while (room > 0 && steps < scanCap) {
      while (left >= 0 && unitGroup[free[left]!] === group && !usable(left) && steps < scanCap) {
        left--;
        steps++;
      }
      while (right < free.length && unitGroup[free[right]!] === group && !usable(right) && steps < scanCap) {
        right++;
        steps++;
      }
      const okLeft = usable(left);
      const okRight = usable(right);
      if (!okLeft && !okRight) break;
      const takeLeft =
        !okRight || (okLeft && mean - unitMean[free[left]!]! <= unitMean[free[right]!]! - mean);
      const p = takeLeft ? left-- : right++;
      this.units[count++] = free[p]!;
      room -= unitSize[free[p]!]!;
      steps++;
    }
    if (room !== 0) return undefined;

    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let oldest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      const w = this.units[i]!;
      min = Math.min(min, unitMin[w]!);
      max = Math.max(max, unitMax[w]!);
      oldest = Math.min(oldest, unitOldest[w]!);
      this.sizes[i] = unitSize[w]!;
      this.sums[i] = unitSum[w]!;
    }
    let imbalance = 0;
    if (teams >= 2 && perTeam >= 2) {
      imbalance = this.balancer.balance(count, this.sizes, this.sums, teams, perTeam, this.teamOf);
      if (imbalance < 0) return undefined;
    }
    const wait = Math.max(now - oldest, 0);
    return {
      score: matchScore(max - min, imbalance, tolerance, unitSpreadWeight(this.model, anchor, this.settings)),
      required: requiredScore(wait, targetWaitingTime, wait >= maxWaitingTime),
      wait,
    };
  }
}
