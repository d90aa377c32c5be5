import { ArrayArena, decayedPeak } from "./array-arena.js";
import { SinglesScratch } from "./match-search-singles.js";
import { TeamBalancer } from "./team-balancing.js";

/**
 * The memory a search reuses from one call to the next, owned by its caller: the HTTP shell keeps
 * one per process, `findMatches` makes a fresh one when given none. Never shared by two searches at
 * once. It remembers a decaying peak of the queue sizes it served and releases its arrays once they
 * are more than four times that, so one huge queue does not pin its memory for the life of the
 * process (the arena does the same for its buffer).
 */
export class SearchScratch {
  /** The per-search typed arrays (queue model, sorts, matches found); reset by each `findMatches`. */
  readonly arrays = new ArrayArena();
  readonly singles = new SinglesScratch();
  readonly balancer = new TeamBalancer();
  private recentPeak = 0;

  /** Called after each search with the number of units it ran on. */
  noteSearch(units: number): void {
    this.recentPeak = decayedPeak(this.recentPeak, units);
    if (this.singles.orderCapacity > 4 * this.recentPeak + 1024) this.singles.release();
  }
}
