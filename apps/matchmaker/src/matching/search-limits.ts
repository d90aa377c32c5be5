/**
 * How far an anchor looks for partners. Both searches read these, and the single-ticket search's
 * "same choices as the general search" guarantee depends on them being the same numbers.
 */

/** Free neighbours kept on each side of an anchor, per player of the match. */
const NEIGHBOURS_PER_PLAYER = 3;
/** At least this many neighbours kept on each side, whatever the match size. */
const MIN_NEIGHBOURS = 8;
/** Units looked at on each side, per neighbour kept (skipping incompatible ones). */
const SCAN_PER_NEIGHBOUR = 4;

/** One bit per server in a 32-bit mask: the single-ticket search needs every server to have one. */
export const SERVER_BITS = 32;

export interface NeighbourLimits {
  /** Neighbours kept on each side. */
  keep: number;
  /** Units scanned on each side at most. */
  scanCap: number;
}

export function neighbourLimits(matchSize: number): NeighbourLimits {
  const keep = Math.max(MIN_NEIGHBOURS, NEIGHBOURS_PER_PLAYER * matchSize);
  return { keep, scanCap: SCAN_PER_NEIGHBOUR * keep };
}
