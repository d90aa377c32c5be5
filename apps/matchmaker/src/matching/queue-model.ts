/**
 * Turns the request into flat typed arrays the search runs on: tickets → units (a party is one unit),
 * constraint groups, server ids (names mapped to small integers) and per-ticket server costs.
 * One pass over the tickets; no per-ticket objects beyond what reading the input needs.
 */
import { ArrayArena } from "./array-arena.js";
import { sortIndicesByClass, sortIndicesByKey, sortIndicesByWholeKey } from "./index-sort.js";
import type { MatchGameMode, MatchTicket } from "./types.js";

export interface QueueModel {
  ticketCount: number;
  ratings: Float64Array;
  /**
   * Ticket server entries (CSR): ids, and latency in ms (NaN for a server list; undefined when no
   * ticket has a latency map). An entry's position in its ticket's list is `e - ticketServerStart[t]`.
   */
  ticketServerStart: Int32Array;
  ticketServerId: Int32Array;
  ticketServerLatency: Float64Array | undefined;
  serverNames: string[];

  unitCount: number;
  /** Unit members (CSR over ticket indices, in input order). */
  unitMemberStart: Int32Array;
  unitMembers: Int32Array;
  unitSize: Int32Array;
  unitSum: Float64Array;
  unitMin: Float64Array;
  unitMax: Float64Array;
  unitMean: Float64Array;
  unitOldest: Float64Array;
  unitGroup: Int32Array;
  /** Servers every member of the unit can use (CSR). */
  unitServerStart: Int32Array;
  unitServerId: Int32Array;
  /** Bit per server id when there are at most 32 servers in the request, else undefined. */
  unitServerMask: Int32Array | undefined;
  hasParties: boolean;

  /** Matchable units sorted by (constraint group, mean rating). */
  ratingOrder: Int32Array;
  /** Matchable units, oldest first (the order in which they anchor a match search). */
  anchorOrder: Int32Array;
}

/** A typed array that grows by doubling; `data` is valid up to `length`. */
class GrowableBuffer<T extends Int32Array | Float64Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (size: number) => T,
  ) {}
  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
}

const intBuffer = (arrays: ArrayArena, capacity: number) =>
  new GrowableBuffer(arrays.int32(Math.max(16, capacity)), (n) => arrays.int32(n));
const floatBuffer = (arrays: ArrayArena, capacity: number) =>
  new GrowableBuffer(arrays.float64(Math.max(16, capacity)), (n) => arrays.float64(n));
type IntBuffer = ReturnType<typeof intBuffer>;
type FloatBuffer = ReturnType<typeof floatBuffer>;

const hasOwn = Object.prototype.hasOwnProperty;

/** Canonical text of a constraint object: equal objects (key order aside) give equal keys. */
export function constraintKey(constraints: MatchTicket["exactEqualityConstraints"]): string {
  if (constraints === null || constraints === undefined || typeof constraints !== "object") return "";
  const keys = Object.keys(constraints);
  if (keys.length === 0) return "";
  keys.sort();
  let key = "";
  for (const k of keys) key += `${JSON.stringify(k)}:${JSON.stringify(constraints[k])},`;
  return key;
}

/** The model's arrays come from `arrays` (valid until its next reset); an empty arena allocates them. */
export function buildQueueModel(
  gameMode: MatchGameMode,
  tickets: readonly MatchTicket[],
  arrays: ArrayArena = new ArrayArena(),
): QueueModel {
  const n = tickets.length;
  const playersPerTeam = gameMode.numPlayersPerTeam;
  const maxLatency =
    typeof gameMode.maxLatency === "number" && Number.isFinite(gameMode.maxLatency)
      ? gameMode.maxLatency
      : Number.POSITIVE_INFINITY;

  const ratings = arrays.float64(n);
  const joins = arrays.float64(n);
  const ticketGroup = arrays.int32(n);
  const ticketUnit = arrays.int32(n);
  const ticketServerStart = arrays.int32(n + 1);
  const serverIds = intBuffer(arrays, n * 5);
  // Created at the first latency map; entries before it are server lists (NaN).
  let serverLatency: FloatBuffer | undefined;
  const serverIndex = new Map<string, number>();
  const serverNames: string[] = [];
  const groupIndex = new Map<string, number>();
  groupIndex.set("", 0);
  const partyIndex = new Map<string, number>();
  let unitCount = 0;
  let hasParties = false;

  const serverId = (name: string): number => {
    let id = serverIndex.get(name);
    if (id === undefined) {
      id = serverNames.length;
      serverIndex.set(name, id);
      serverNames.push(name);
    }
    return id;
  };

  for (let t = 0; t < n; t++) {
    const ticket = tickets[t]!;
    ratings[t] = ticket.rating;
    joins[t] = ticket.joinTimestamp;

    const constraints = ticket.exactEqualityConstraints;
    if (constraints !== null && constraints !== undefined) {
      const key = constraintKey(constraints);
      let group = groupIndex.get(key);
      if (group === undefined) {
        group = groupIndex.size;
        groupIndex.set(key, group);
      }
      ticketGroup[t] = group;
    }

    const party = ticket.partyId;
    if (party === undefined || party === null || party === "") {
      ticketUnit[t] = unitCount++;
    } else {
      const key = String(party);
      let unit = partyIndex.get(key);
      if (unit === undefined) {
        unit = unitCount++;
        partyIndex.set(key, unit);
      } else {
        hasParties = true;
      }
      ticketUnit[t] = unit;
    }

    const servers = ticket.servers;
    if (Array.isArray(servers)) {
      for (let i = 0; i < servers.length; i++) {
        serverIds.push(serverId(servers[i] as string));
        if (serverLatency !== undefined) serverLatency.push(Number.NaN);
      }
    } else if (servers !== null && typeof servers === "object") {
      const map = servers as Readonly<Record<string, number>>;
      if (serverLatency === undefined) {
        serverLatency = floatBuffer(arrays, Math.max(serverIds.data.length, 16));
        for (let e = 0; e < serverIds.length; e++) serverLatency.push(Number.NaN);
      }
      for (const name in map) {
        if (!hasOwn.call(map, name)) continue;
        const latency = map[name];
        if (typeof latency !== "number" || !(latency >= 0) || latency > maxLatency) continue;
        serverIds.push(serverId(name));
        serverLatency.push(latency);
      }
    }
    ticketServerStart[t + 1] = serverIds.length;
  }

  const serverCount = serverNames.length;

  const units =
    partyIndex.size === 0
      ? singleTicketUnits(
          arrays,
          n,
          playersPerTeam,
          ratings,
          joins,
          ticketGroup,
          ticketServerStart,
          serverIds,
          serverCount,
        )
      : partyUnits(
          arrays,
          n,
          unitCount,
          playersPerTeam,
          ratings,
          joins,
          ticketGroup,
          ticketUnit,
          ticketServerStart,
          serverIds,
          serverCount,
        );
  const {
    unitSize,
    unitMemberStart,
    unitMembers,
    unitSum,
    unitMin,
    unitMax,
    unitMean,
    unitOldest,
    unitGroup,
    unitServerStart,
    unitServerId,
    eligible,
    mask,
  } = units;

  let eligibleCount = 0;
  for (let u = 0; u < unitCount; u++) eligibleCount += eligible[u]!;
  const matchable = arrays.int32(eligibleCount);
  for (let u = 0, i = 0; u < unitCount; u++) if (eligible[u] === 1) matchable[i++] = u;

  const byRating = sortIndicesByKey(matchable, unitMean, arrays);
  const ratingOrder = sortIndicesByClass(byRating, unitGroup, groupIndex.size, arrays);
  const anchorOrder = sortIndicesByWholeKey(matchable, unitOldest, arrays);

  return {
    ticketCount: n,
    ratings,
    ticketServerStart,
    ticketServerId: serverIds.data.subarray(0, serverIds.length),
    ticketServerLatency: serverLatency?.data.subarray(0, serverLatency.length),
    serverNames,
    unitCount,
    unitMemberStart,
    unitMembers,
    unitSize,
    unitSum,
    unitMin,
    unitMax,
    unitMean,
    unitOldest,
    unitGroup,
    unitServerStart,
    unitServerId,
    unitServerMask: mask,
    hasParties,
    ratingOrder,
    anchorOrder,
  };
}

interface Units {
  unitSize: Int32Array;
  unitMemberStart: Int32Array;
  unitMembers: Int32Array;
  unitSum: Float64Array;
  unitMin: Float64Array;
  unitMax: Float64Array;
  unitMean: Float64Array;
  unitOldest: Float64Array;
  unitGroup: Int32Array;
  unitServerStart: Int32Array;
  unitServerId: Int32Array;
  eligible: Uint8Array;
  mask: Int32Array | undefined;
}

/** No ticket has a party: every ticket is its own unit, and most arrays are the tickets' own. */
function singleTicketUnits(
  arrays: ArrayArena,
  n: number,
  playersPerTeam: number,
  ratings: Float64Array,
  joins: Float64Array,
  ticketGroup: Int32Array,
  ticketServerStart: Int32Array,
  serverIds: IntBuffer,
  serverCount: number,
): Units {
  const identity = arrays.int32(n + 1);
  for (let i = 0; i <= n; i++) identity[i] = i;
  const sum = arrays.float64(n);
  // 0 + r as in a party's sum (so -0 becomes 0, exactly as the general path computes it).
  for (let t = 0; t < n; t++) sum[t] = 0 + ratings[t]!;
  const ids = serverIds.data;
  const eligible = arrays.uint8(n);
  const mask = serverCount <= 32 ? arrays.int32(n) : undefined;
  const fits = playersPerTeam >= 1 ? 1 : 0;
  for (let t = 0; t < n; t++) {
    const from = ticketServerStart[t]!;
    const to = ticketServerStart[t + 1]!;
    eligible[t] = to > from ? fits : 0;
    if (mask !== undefined) {
      let bits = 0;
      for (let e = from; e < to; e++) bits |= 1 << ids[e]!;
      mask[t] = bits;
    }
  }
  return {
    unitSize: arrays.int32(n).fill(1),
    unitMemberStart: identity,
    unitMembers: identity.subarray(0, n),
    unitSum: sum,
    unitMin: ratings,
    unitMax: ratings,
    unitMean: sum,
    unitOldest: joins,
    unitGroup: ticketGroup,
    unitServerStart: ticketServerStart,
    unitServerId: ids.subarray(0, serverIds.length),
    eligible,
    mask,
  };
}

function partyUnits(
  arrays: ArrayArena,
  n: number,
  unitCount: number,
  playersPerTeam: number,
  ratings: Float64Array,
  joins: Float64Array,
  ticketGroup: Int32Array,
  ticketUnit: Int32Array,
  ticketServerStart: Int32Array,
  serverIds: IntBuffer,
  serverCount: number,
): Units {
  // Units: members in input order (counting sort by unit).
  const unitSize = arrays.int32(unitCount);
  for (let t = 0; t < n; t++) unitSize[ticketUnit[t]!]!++;
  const unitMemberStart = arrays.int32(unitCount + 1);
  for (let u = 0; u < unitCount; u++) unitMemberStart[u + 1] = unitMemberStart[u]! + unitSize[u]!;
  const unitMembers = arrays.int32(n);
  const fill = arrays.copyOf(unitMemberStart.subarray(0, unitCount));
  for (let t = 0; t < n; t++) unitMembers[fill[ticketUnit[t]!]!++] = t;

  const unitSum = arrays.float64(unitCount);
  const unitMin = arrays.float64(unitCount);
  const unitMax = arrays.float64(unitCount);
  const unitMean = arrays.float64(unitCount);
  const unitOldest = arrays.float64(unitCount);
  const unitGroup = arrays.int32(unitCount);
  const unitServerStart = arrays.int32(unitCount + 1);
  const unitServerIds = intBuffer(arrays, serverIds.length);
  const eligible = arrays.uint8(unitCount);
  const stamp = arrays.int32(serverCount).fill(-1);
  const seen = arrays.int32(serverCount);
  const mask = serverCount <= 32 ? arrays.int32(unitCount) : undefined;

  for (let u = 0; u < unitCount; u++) {
    const from = unitMemberStart[u]!;
    const to = unitMemberStart[u + 1]!;
    const first = unitMembers[from]!;
    let sum = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let oldest = Number.POSITIVE_INFINITY;
    let sameGroup = true;
    const group = ticketGroup[first]!;
    for (let m = from; m < to; m++) {
      const t = unitMembers[m]!;
      const r = ratings[t]!;
      sum += r;
      if (r < min) min = r;
      if (r > max) max = r;
      if (joins[t]! < oldest) oldest = joins[t]!;
      if (ticketGroup[t] !== group) sameGroup = false;
    }
    const size = to - from;
    unitSum[u] = sum;
    unitMin[u] = min;
    unitMax[u] = max;
    unitMean[u] = sum / size;
    unitOldest[u] = oldest;
    unitGroup[u] = group;

    // Servers every member can use, in the first member's order.
    if (size === 1) {
      for (let e = ticketServerStart[first]!; e < ticketServerStart[first + 1]!; e++) {
        unitServerIds.push(serverIds.data[e]!);
      }
    } else {
      for (let m = from; m < to; m++) {
        const t = unitMembers[m]!;
        for (let e = ticketServerStart[t]!; e < ticketServerStart[t + 1]!; e++) {
          const s = serverIds.data[e]!;
          if (stamp[s] !== u) {
            stamp[s] = u;
            seen[s] = 1;
          } else {
            seen[s]!++;
          }
        }
      }
      for (let e = ticketServerStart[first]!; e < ticketServerStart[first + 1]!; e++) {
        const s = serverIds.data[e]!;
        if (seen[s] === size) unitServerIds.push(s);
      }
    }
    unitServerStart[u + 1] = unitServerIds.length;
    if (mask !== undefined) {
      let bits = 0;
      for (let e = unitServerStart[u]!; e < unitServerStart[u + 1]!; e++) bits |= 1 << unitServerIds.data[e]!;
      mask[u] = bits;
    }
    eligible[u] =
      sameGroup && size <= playersPerTeam && unitServerStart[u + 1]! > unitServerStart[u]! ? 1 : 0;
  }

  return {
    unitSize,
    unitMemberStart,
    unitMembers,
    unitSum,
    unitMin,
    unitMax,
    unitMean,
    unitOldest,
    unitGroup,
    unitServerStart,
    unitServerId: unitServerIds.data.subarray(0, unitServerIds.length),
    eligible,
    mask,
  };
}
