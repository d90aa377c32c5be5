import type { UnmatchedReason } from "@arena/contracts";

/** A ticket as the matchmaker sees it; extra wire fields are carried through untouched. */
export interface MatchTicket {
  ticketId: string;
  joinTimestamp: number;
  rating: number;
  /** A server list (best first) or, on the advanced edition, a latency map `{server: latencyMs}`. */
  servers: readonly string[] | Readonly<Record<string, number>>;
  partyId?: string;
  exactEqualityConstraints?: Readonly<Record<string, string | number | boolean>> | null;
  [extra: string]: unknown;
}

export interface MatchGameMode {
  numTeams: number;
  numPlayersPerTeam: number;
  /** Seconds; the wait over which the required quality relaxes to "anything compatible". Default 20. */
  targetWaitingTime?: number;
  /** Seconds; a ticket that waited this long takes the best match available to it, whatever its quality. */
  maxWaitingTime?: number;
  /** Milliseconds; latency-map servers above it are not candidates. */
  maxLatency?: number;
  /** Rating units; the difference that counts as clearly unequal. Default derived from the request. */
  ratingTolerance?: number;
}

export interface MatchOptions {
  /** Unix seconds. */
  now: number;
  edition: "basic" | "advanced";
  /** Seed of the suggestion and team ids; the same seed and request give the same ids. */
  idSeed?: string;
  /** Also say why each unmatched ticket is waiting (`unmatchedReasons`). */
  explain?: boolean;
}

export interface MatchedTeam {
  id: string;
  tickets: MatchTicket[];
}

export interface MatchSuggestion {
  id: string;
  server: string;
  matchScore: number;
  teams: MatchedTeam[];
}

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
