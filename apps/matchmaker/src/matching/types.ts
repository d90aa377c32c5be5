/**
 * The algorithm's types. The wire shapes come from `@arena/contracts`, never restated here; the rest
 * is what the search passes between its steps. Types only, importing no implementation: the search's
 * modules all read this file, so a type from one of them here would close an import circle
 * (`findMatches`' options, which name the search's scratch memory, live beside `findMatches`).
 */
import type {
  GameMode,
  Ticket,
  UnmatchedReason,
  MatchSuggestion as WireMatchSuggestion,
} from "@arena/contracts";

/** A ticket as the client sent it (schema-valid); extra wire fields are carried through untouched. */
export type MatchTicket = Ticket;

/** The game mode as the client sent it; defaults are applied by `findMatches`. */
export type MatchGameMode = GameMode;

export interface MatchedTeam {
  id: string;
  tickets: MatchTicket[];
}

/** A suggestion as on the wire, holding the very ticket objects it was given. */
export type MatchSuggestion = Omit<WireMatchSuggestion, "teams"> & { teams: MatchedTeam[] };

export interface MatchResult {
  matchSuggestions: MatchSuggestion[];
  unmatchedTickets: MatchTicket[];
  /**
   * The request index of every returned ticket, in the order the answer lists them: match by match,
   * team by team, then the unmatched ones. Lets a writer find each ticket's source without a lookup.
   */
  ticketOrder: Int32Array;
  /** With `explain`: the reason of each unmatched ticket, in the order of `unmatchedTickets`. */
  unmatchedReasons?: UnmatchedReason[];
}

/** The game mode with its defaults applied, as both searches read it. */
export interface SearchSettings {
  teams: number;
  perTeam: number;
  now: number;
  targetWaitingTime: number;
  /** Infinity when the game mode has none. */
  maxWaitingTime: number;
  tolerance: number;
}

/** What a search found: matches as runs of units, in the order they were formed. */
export interface FoundMatches {
  count: number;
  /** Units of match i are `units[unitStart[i] .. unitStart[i+1])`, in rating order. */
  unitStart: Int32Array;
  units: Int32Array;
  /** Team (0-based) of each entry of `units`. */
  unitTeam: Int32Array;
  score: Float64Array;
}
