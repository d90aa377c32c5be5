/**
 * The parts of the platform's pushes this server reads (docs/api.md, Pushes). The SDK's own types
 * describe them whole; these name only what the example relies on.
 */
export interface SuggestedMatch {
  id: string;
  server: string;
  teams: Array<{ players: Array<{ playerId: string }> }>;
}

export interface MatchSuggestion {
  gameId: string;
  match: SuggestedMatch;
}

export interface BackfillSuggestion {
  backfillingRequestId: string;
  gameId: string;
  matchId: string;
  droppedPlayerId: string;
  replacement: { playerId: string };
}

export interface PlayersRemoved {
  gameId: string;
  players: Array<{ playerId: string }>;
}
