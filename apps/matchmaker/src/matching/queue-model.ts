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
  /**
   * The median mean rating of each constraint group's matchable units (a party counts once), by
   * group id; what an anchor's `spreadWeight` is measured from. Unplaceable units take no part, so
   * they change nothing for the rest.
   */
  groupMedian: Float64Array;
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
  const maxLatency =
    typeof gameMode.maxLatency === "number" && Number.isFinite(gameMode.maxLatency)
      ? gameMode.maxLatency
      : Number.POSITIVE_INFINITY;
  const columns = readTickets(tickets, maxLatency, arrays);
  const { servers, unitCount } = columns;
  const units =
    columns.partyCount === 0
      ? singleTicketUnits(arrays, columns, gameMode.numPlayersPerTeam)
      : partyUnits(arrays, columns, gameMode.numPlayersPerTeam);

  let eligibleCount = 0;
  for (let u = 0; u < unitCount; u++) eligibleCount += units.eligible[u]!;
  const matchable = arrays.int32(eligibleCount);
  for (let u = 0, i = 0; u < unitCount; u++) if (units.eligible[u] === 1) matchable[i++] = u;
  const byRating = sortIndicesByKey(matchable, units.unitMean, arrays);
  const ratingOrder = sortIndicesByClass(byRating, units.unitGroup, columns.groupCount, arrays);

  return {
    ticketCount: tickets.length,
    ratings: columns.ratings,
    ticketServerStart: columns.ticketServerStart,
    ticketServerId: servers.ids.data.subarray(0, servers.ids.length),
    ticketServerLatency: servers.latency?.data.subarray(0, servers.latency.length),
    serverNames: servers.names,
    unitCount,
    unitMemberStart: units.unitMemberStart,
    unitMembers: units.unitMembers,
    unitSize: units.unitSize,
    unitSum: units.unitSum,
    unitMin: units.unitMin,
    unitMax: units.unitMax,
    unitMean: units.unitMean,
    unitOldest: units.unitOldest,
    unitGroup: units.unitGroup,
    unitServerStart: units.unitServerStart,
    unitServerId: units.unitServerId,
    unitServerMask: units.mask,
    hasParties: columns.hasParties,
    ratingOrder,
    groupMedian: groupMedians(ratingOrder, units.unitGroup, units.unitMean, columns.groupCount, arrays),
    anchorOrder: sortIndicesByWholeKey(matchable, units.unitOldest, arrays),
  };
}

/** Each group's median unit mean, from the runs of `ratingOrder` (sorted by group, then mean). */
function groupMedians(
  ratingOrder: Int32Array,
  unitGroup: Int32Array,
  unitMean: Float64Array,
  groupCount: number,
  arrays: ArrayArena,
): Float64Array {
  const medians = arrays.float64(Math.max(groupCount, 1)).fill(Number.NaN);
  for (let start = 0; start < ratingOrder.length; ) {
    const group = unitGroup[ratingOrder[start]!]!;
    let end = start + 1;
    while (end < ratingOrder.length && unitGroup[ratingOrder[end]!] === group) end++;
    const lower = unitMean[ratingOrder[start + ((end - start - 1) >> 1)]!]!;
    const upper = unitMean[ratingOrder[start + ((end - start) >> 1)]!]!;
    medians[group] = (lower + upper) / 2;
    start = end;
  }
  return medians;
}

/** The tickets read into one entry per ticket: what the units are built from. */
interface TicketColumns {
  ticketCount: number;
  ratings: Float64Array;
  joins: Float64Array;
  /** Constraint group of each ticket (0: no constraints); `groupCount` groups in all. */
  ticketGroup: Int32Array;
  groupCount: number;
  /** Unit of each ticket (a party's tickets share one); `unitCount` units, `partyCount` of them parties. */
  ticketUnit: Int32Array;
  unitCount: number;
  partyCount: number;
  /** Whether some party has two or more tickets. */
  hasParties: boolean;
  /** Ticket t's server entries are `servers.ids[ticketServerStart[t] .. ticketServerStart[t+1])`. */
  ticketServerStart: Int32Array;
  servers: ServerEntries;
}

/** One pass over the tickets: ratings, joins, constraint groups, units and server entries. */
function readTickets(tickets: readonly MatchTicket[], maxLatency: number, arrays: ArrayArena): TicketColumns {
  const n = tickets.length;
  const ratings = arrays.float64(n);
  const joins = arrays.float64(n);
  const ticketGroup = arrays.int32(n);
  const ticketUnit = arrays.int32(n);
  const ticketServerStart = arrays.int32(n + 1);
  const servers = new ServerEntries(arrays, n * 5, maxLatency);
  const groupIndex = new Map<string, number>();
  groupIndex.set("", 0);
  const partyIndex = new Map<string, number>();
  let unitCount = 0;
  let hasParties = false;

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

    servers.add(ticket.servers);
    ticketServerStart[t + 1] = servers.ids.length;
  }
  return {
    ticketCount: n,
    ratings,
    joins,
    ticketGroup,
    groupCount: groupIndex.size,
    ticketUnit,
    unitCount,
    partyCount: partyIndex.size,
    hasParties,
    ticketServerStart,
    servers,
  };
}

/** Every ticket's server entries, one after the other, with the server names mapped to small ids. */
class ServerEntries {
  readonly ids: IntBuffer;
  /** Created at the first latency map; entries before it are server lists (NaN). */
  latency: FloatBuffer | undefined;
  /** Server name by id. */
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly arrays: ArrayArena,
    capacity: number,
    /** Servers of a latency map above this are left out. */
    private readonly maxLatency: number,
  ) {
    this.ids = intBuffer(arrays, capacity);
  }

  /** Appends one ticket's servers: a list in preference order, or a latency map. */
  add(servers: MatchTicket["servers"]): void {
    const { ids } = this;
    let latencies = this.latency;
    if (Array.isArray(servers)) {
      for (let i = 0; i < servers.length; i++) {
        ids.push(this.id(servers[i] as string));
        if (latencies !== undefined) latencies.push(Number.NaN);
      }
    } else if (servers !== null && typeof servers === "object") {
      const map = servers as Readonly<Record<string, number>>;
      if (latencies === undefined) {
        latencies = floatBuffer(this.arrays, Math.max(ids.data.length, 16));
        for (let e = 0; e < ids.length; e++) latencies.push(Number.NaN);
        this.latency = latencies;
      }
      const { maxLatency } = this;
      for (const name in map) {
        if (!hasOwn.call(map, name)) continue;
        const latency = map[name];
        if (typeof latency !== "number" || !(latency >= 0) || latency > maxLatency) continue;
        ids.push(this.id(name));
        latencies.push(latency);
      }
    }
  }

  private id(name: string): number {
    let id = this.index.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.index.set(name, id);
      this.names.push(name);
    }
    return id;
  }
}

/** The model's unit columns as the two unit builders make them, with which units can be matched. */
type Units = Pick<
  QueueModel,
  | "unitSize"
  | "unitMemberStart"
  | "unitMembers"
  | "unitSum"
  | "unitMin"
  | "unitMax"
  | "unitMean"
  | "unitOldest"
  | "unitGroup"
  | "unitServerStart"
  | "unitServerId"
> & { eligible: Uint8Array; mask: Int32Array | undefined };

/** No ticket has a party: every ticket is its own unit, and most arrays are the tickets' own. */
function singleTicketUnits(arrays: ArrayArena, columns: TicketColumns, playersPerTeam: number): Units {
  const { ticketCount: n, ratings, ticketServerStart, servers } = columns;
  const identity = arrays.int32(n + 1);
  for (let i = 0; i <= n; i++) identity[i] = i;
  const sum = arrays.float64(n);
  // 0 + r as in a party's sum (so -0 becomes 0, exactly as the general path computes it).
  for (let t = 0; t < n; t++) sum[t] = 0 + ratings[t]!;
  const ids = servers.ids.data;
  const eligible = arrays.uint8(n);
  const mask = servers.names.length <= 32 ? arrays.int32(n) : undefined;
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
    unitOldest: columns.joins,
    unitGroup: columns.ticketGroup,
    unitServerStart: ticketServerStart,
    unitServerId: ids.subarray(0, servers.ids.length),
    eligible,
    mask,
  };
}

/** Some tickets share a party: a unit's ratings, join and servers are its members' together. */
function partyUnits(arrays: ArrayArena, columns: TicketColumns, playersPerTeam: number): Units {
  const { unitCount, ratings, joins, ticketGroup } = columns;
  const { unitSize, unitMemberStart, unitMembers } = unitMembersOf(arrays, columns);
  const unitSum = arrays.float64(unitCount);
  const unitMin = arrays.float64(unitCount);
  const unitMax = arrays.float64(unitCount);
  const unitMean = arrays.float64(unitCount);
  const unitOldest = arrays.float64(unitCount);
  const unitGroup = arrays.int32(unitCount);
  const eligible = arrays.uint8(unitCount);
  const servers = new SharedServers(arrays, columns);
  for (let u = 0; u < unitCount; u++) {
    const from = unitMemberStart[u]!;
    const to = unitMemberStart[u + 1]!;
    let sum = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let oldest = Number.POSITIVE_INFINITY;
    let sameGroup = true;
    const group = ticketGroup[unitMembers[from]!]!;
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
    const hasServer = servers.add(u, unitMembers, from, to);
    eligible[u] = sameGroup && size <= playersPerTeam && hasServer ? 1 : 0;
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
    unitServerStart: servers.start,
    unitServerId: servers.ids.data.subarray(0, servers.ids.length),
    eligible,
    mask: servers.mask,
  };
}

type UnitMembers = Pick<Units, "unitSize" | "unitMemberStart" | "unitMembers">;

/** Each unit's members (CSR), in input order: a counting sort of the tickets by unit. */
function unitMembersOf(arrays: ArrayArena, columns: TicketColumns): UnitMembers {
  const { ticketCount: n, unitCount, ticketUnit } = columns;
  const unitSize = arrays.int32(unitCount);
  for (let t = 0; t < n; t++) unitSize[ticketUnit[t]!]!++;
  const unitMemberStart = arrays.int32(unitCount + 1);
  for (let u = 0; u < unitCount; u++) unitMemberStart[u + 1] = unitMemberStart[u]! + unitSize[u]!;
  const unitMembers = arrays.int32(n);
  const fill = arrays.copyOf(unitMemberStart.subarray(0, unitCount));
  for (let t = 0; t < n; t++) unitMembers[fill[ticketUnit[t]!]!++] = t;
  return { unitSize, unitMemberStart, unitMembers };
}

/** The servers every member of a unit can use (CSR over the units), in its first member's order. */
class SharedServers {
  /** Unit u's servers are `ids.data[start[u] .. start[u+1])`. */
  readonly start: Int32Array;
  readonly ids: IntBuffer;
  /** Bit per server id of each unit when there are at most 32 servers in the request. */
  readonly mask: Int32Array | undefined;
  private readonly ticketServerStart: Int32Array;
  private readonly ticketServerId: Int32Array;
  // stamp[s] === u: server s was counted for unit u, seen[s] times.
  private readonly stamp: Int32Array;
  private readonly seen: Int32Array;

  constructor(arrays: ArrayArena, columns: TicketColumns) {
    const serverCount = columns.servers.names.length;
    this.start = arrays.int32(columns.unitCount + 1);
    this.ids = intBuffer(arrays, columns.servers.ids.length);
    this.mask = serverCount <= 32 ? arrays.int32(columns.unitCount) : undefined;
    this.ticketServerStart = columns.ticketServerStart;
    this.ticketServerId = columns.servers.ids.data;
    this.stamp = arrays.int32(serverCount).fill(-1);
    this.seen = arrays.int32(serverCount);
  }

  /** Records the servers of unit u (the next one), of members `unitMembers[from..to)`; true if any. */
  add(u: number, unitMembers: Int32Array, from: number, to: number): boolean {
    const { ids, start, mask, ticketServerStart, ticketServerId, stamp, seen } = this;
    const first = unitMembers[from]!;
    const size = to - from;
    if (size === 1) {
      for (let e = ticketServerStart[first]!; e < ticketServerStart[first + 1]!; e++) {
        ids.push(ticketServerId[e]!);
      }
    } else {
      for (let m = from; m < to; m++) {
        const t = unitMembers[m]!;
        for (let e = ticketServerStart[t]!; e < ticketServerStart[t + 1]!; e++) {
          const s = ticketServerId[e]!;
          if (stamp[s] !== u) {
            stamp[s] = u;
            seen[s] = 1;
          } else {
            seen[s]!++;
          }
        }
      }
      for (let e = ticketServerStart[first]!; e < ticketServerStart[first + 1]!; e++) {
        const s = ticketServerId[e]!;
        if (seen[s] === size) ids.push(s);
      }
    }
    start[u + 1] = ids.length;
    if (mask !== undefined) {
      let bits = 0;
      for (let e = start[u]!; e < start[u + 1]!; e++) bits |= 1 << ids.data[e]!;
      mask[u] = bits;
    }
    return start[u + 1]! > start[u]!;
  }
}
