import { searchMatchesGeneral } from "./match-search-general.js";
import { searchSingles, singlesSearchApplies } from "./match-search-singles.js";
import type { QueueModel } from "./queue-model.js";
import type { SearchScratch } from "./search-scratch.js";
import type { FoundMatches, SearchSettings } from "./types.js";

/**
 * The match search: the single-ticket fast path when it applies (no parties, at most 32 servers),
 * else the general one. Both make the same choices (property-tested in match-search.test.ts).
 */
export function searchMatches(
  model: QueueModel,
  settings: SearchSettings,
  scratch: SearchScratch,
): FoundMatches {
  const found = singlesSearchApplies(model, settings.teams, settings.perTeam)
    ? searchSingles(model, settings, scratch.singles, scratch.balancer, scratch.arrays)
    : searchMatchesGeneral(model, settings, scratch.balancer, scratch.arrays);
  scratch.noteSearch(model.ratingOrder.length);
  return found;
}
