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

/**
 * Largest match (players) whose searches also take near-contiguous windows: one inner neighbour left
 * out, so that the teams can split evenly. Their number grows with the square of the match size, and
 * larger matches already split within a rating point or two (measured: 5v5 imbalance 1.7 on a spread
 * of 650), so beyond this the extra windows would cost time and gain nothing.
 */
export const SKIP_MAX_MATCH_SIZE = 6;

/** Whether a search of this shape (single tickets) takes near-contiguous windows. */
export function skipsNeighbours(teams: number, perTeam: number): boolean {
  return teams >= 2 && perTeam >= 2 && teams * perTeam <= SKIP_MAX_MATCH_SIZE;
}

/** Near-contiguous windows per server at most: one per split of need + 1 neighbours and inner one left out. */
export function skipCandidatesPerServer(matchSize: number): number {
  return (matchSize + 1) * matchSize;
}

/**
 * Among the windows whose match score its wait accepts, an anchor takes the one with the smallest
 * spread² + (weight · imbalance)². The score weighs imbalance 2 (ALGORITHM.md §1); choosing with 3
 * gives 10–16 % less imbalance at the same waits and spread in the quality benchmark, while the score
 * a client sees, and what a wait accepts, stay as they were.
 */
export const SELECTION_IMBALANCE_WEIGHT = 3;
