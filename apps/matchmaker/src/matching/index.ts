export { findMatches, type MatchOptions } from "./find-matches.js";
export {
  DEFAULT_TARGET_WAITING_TIME,
  defaultRatingTolerance,
  IMBALANCE_WEIGHT,
  matchScore,
  requiredScore,
} from "./match-quality.js";
export { SearchScratch } from "./search-scratch.js";
export type {
  MatchedTeam,
  MatchGameMode,
  MatchResult,
  MatchSuggestion,
  MatchTicket,
} from "./types.js";
