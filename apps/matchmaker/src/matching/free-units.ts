/**
 * The free units of a search and the matches it records. Units are named by their position in the
 * rating order; a doubly linked list over those positions, cut at constraint-group boundaries, makes
 * "nearest free neighbour" O(1), and recording a match unlinks its units. Both searches record
 * matches through `MatchOutput.record`, so they write the same result from the same choice.
 */
import { ArrayArena } from "./array-arena.js";
import type { FoundMatches } from "./types.js";

export interface FreeLinks {
  /** Previous free position in the same group, or -1. */
  prev: Int32Array;
  /** Next free position in the same group, or -1. */
  next: Int32Array;
  /** 1 once the position is in a match. */
  used: Uint8Array;
}

/** Links positions `0..length-1` of `order` within each run of equal `unitGroup`, all free. */
export function linkFreeUnits(
  order: Int32Array,
  length: number,
  unitGroup: Int32Array,
  links: FreeLinks,
): void {
  const { prev, next, used } = links;
  let lastGroup = -1;
  for (let i = 0; i < length; i++) {
    const g = unitGroup[order[i]!]!;
    prev[i] = g === lastGroup ? i - 1 : -1;
    if (i > 0) next[i - 1] = g === lastGroup ? i : -1;
    lastGroup = g;
    used[i] = 0;
  }
  if (length > 0) next[length - 1] = -1;
}

/** The matches of one search, in the order they were formed. */
export class MatchOutput {
  private readonly found: FoundMatches;
  private length = 0;

  constructor(
    private readonly order: Int32Array,
    maxUnits: number,
    maxMatches: number,
    arrays: ArrayArena = new ArrayArena(),
  ) {
    this.found = {
      count: 0,
      unitStart: arrays.int32(maxMatches + 1),
      units: arrays.int32(maxUnits),
      unitTeam: arrays.int32(maxUnits),
      score: arrays.float64(maxMatches),
    };
  }

  /**
   * Records the positions `window[0..size)` with their teams as one match of `score`, and takes
   * them out of the free list.
   */
  record(links: FreeLinks, window: Int32Array, team: Int32Array, size: number, score: number): void {
    const { prev, next, used } = links;
    const { units, unitTeam } = this.found;
    for (let i = 0; i < size; i++) {
      const p = window[i]!;
      used[p] = 1;
      const before = prev[p]!;
      const after = next[p]!;
      if (before >= 0) next[before] = after;
      if (after >= 0) prev[after] = before;
      units[this.length] = this.order[p]!;
      unitTeam[this.length++] = team[i]!;
    }
    this.found.score[this.found.count] = score;
    this.found.unitStart[++this.found.count] = this.length;
  }

  result(): FoundMatches {
    return this.found;
  }
}
