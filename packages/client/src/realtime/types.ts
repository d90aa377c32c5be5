// The gateway's WebSocket messages, copied from @arena/contracts (the published SDK imports no
// workspace package). Kept to what the client reads; payloads stay open like the contracts'.

/** One player of a match. */
export interface RealtimeMatchPlayer {
  playerId: string;
  reference: string | null;
}

/** `matchSuggestion` push payload: a new match for the game server to start. */
export interface MatchSuggestionPayload {
  gameId: string;
  match: {
    id: string;
    /** Equal to `id`. */
    uuid: string;
    server: string;
    matchScore: number;
    teams: Array<{ players: RealtimeMatchPlayer[] }>;
  };
}

/** `backfillingMatchSuggestion` push payload: a replacement for a player who left a running match. */
export interface BackfillingMatchSuggestionPayload {
  backfillingRequestId: string;
  gameId: string;
  matchId: string;
  droppedPlayerId: string;
  server: string;
  replacement: RealtimeMatchPlayer;
}

/** `playersRemoved` push payload: waiting players the queue dropped (sent to every subscriber). */
export interface PlayersRemovedPayload {
  gameId: string;
  reason: "expired";
  players: RealtimeMatchPlayer[];
}

/** What `subscribe` asks for; subscribing again replaces it. */
export interface RealtimeSubscription {
  gameIds: string[];
  /** Pushes go to the subscribed connections of the highest priority present (-1000..1000, default 0). */
  priority?: number;
  /** Pushes per minute to this connection at most (1..100000); omitted or null: no limit. */
  rateLimit?: number | null;
}

/** The envelope of every message either side sends. */
export interface RealtimeEnvelope {
  action: string;
  messageId: string | null;
  payload?: Record<string, unknown>;
  error?: { code: number; message: string; errors?: Array<{ pointer: string; detail: string }> };
}
