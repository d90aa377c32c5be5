import type { OperationId } from "../generated/operations.js";

/**
 * Which operations may be sent again when no answer came (a network error, 502 or 504: the
 * request may or may not have been processed), and why repeating one cannot do anything twice.
 * `false`: not safe, the error goes to the caller, who knows whether a repeat is wanted. Typed by
 * the generated operation ids, so a new operation in the contracts does not compile until it is
 * decided here. (429 and 503 are retried for every operation: they say the request was not processed.)
 */
export const REPEATABLE: Readonly<Record<OperationId, string | false>> = {
  putGame: "PUT sets the whole configuration: the same body twice stores the same config",
  getGame: "a read",
  addPlayers: false, // a repeat after success is a 409 for players now queued: the caller must decide
  getPlayers: "a read",
  removePlayer: false, // a repeat after success answers 404: the caller must decide
  clearQueue: false, // a repeat would also remove players queued after the first clear
  getMatches: false, // marks suggestions delivered: a lost answer would lose them on a repeat
  acknowledgeMatch: "records the first acknowledgement only; a repeat is a no-op",
  getMatch: "a read",
  confirmMatch: "confirming a confirmed match is a no-op (the match state machine's repeat)",
  failMatch: "failing a failed match answers the first failure's lists again",
  completeMatch: "completion is by match id: a repeat gets the stored answer, ratings are updated once",
  requestBackfill:
    "the SDK sends a backfillingRequestId: a repeat with the same id for the same seat is a no-op",
  getBackfill: "a read",
  cancelBackfill: "cancelling a cancelled request answers its status again",
  getPlayerStats: "a read",
  getPlayerHistory: "a read",
  getLeaderboard: "a read (POST only to carry the query in a body)",
  listSeasons: "a read",
  startSeason: false, // each call starts the next season
  cancelSeason: false, // a repeat after success answers 404
  resetSeason: false, // each call starts a new season
};

export function isRepeatable(operationId: OperationId): boolean {
  return REPEATABLE[operationId] !== false;
}
