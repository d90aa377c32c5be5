import { SinglesScratch } from "./match-search-singles.js";
import { TeamBalancer } from "./team-balancing.js";

/** Calls over which the recent peak size decays to half; below a quarter of capacity, memory is released. */
const PEAK_HALF_LIFE_CALLS = 4;

/**
 * The memory a search reuses from one call to the next, owned by its caller: the HTTP shell keeps
 * one per process, `findMatches` makes a fresh one when given none. Never shared by two searches at
 * once. It remembers a decaying peak of the queue sizes it served and releases its arrays once they
 * are more than four times that, so one huge queue does not pin its memory for the life of the
 * process.
 */
export class SearchScratch {
  readonly singles = new SinglesScratch();
  readonly balancer = new TeamBalancer();
  private recentPeak = 0;

  /** Called after each search with the number of units it ran on. */
  noteSearch(units: number): void {
    this.recentPeak = Math.max(units, this.recentPeak * 0.5 ** (1 / PEAK_HALF_LIFE_CALLS));
    if (this.singles.orderCapacity > 4 * this.recentPeak + 1024) this.singles.release();
  }
}
