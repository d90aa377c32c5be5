import type { MatchResult, MatchTicket } from "../matching/index.js";

const EMPTY_CONSTRAINTS = Object.freeze({});

function normalise(ticket: MatchTicket): void {
  // The tickets are this request's own parsed objects, so they can be completed in place.
  if (ticket.exactEqualityConstraints == null) {
    (ticket as { exactEqualityConstraints: object }).exactEqualityConstraints = EMPTY_CONSTRAINTS;
  }
}

/** Integral JSON numbers under a `"rating"` key, so they can be written as floats (`1500` → `1500.0`). */
const INTEGRAL_RATING = /([{,]"rating":-?\d+)(?=[,}])/g;

/**
 * Writes the answer as JSON text. Every ticket carries `exactEqualityConstraints` (`{}` when it had
 * none) and `rating` as a float, as existing clients of the Idem API expect (a Python client reads
 * `1500` as an int but `1500.0` as a float). One `JSON.stringify` plus one linear pass keeps this
 * close to the cost of serializing the tickets at all.
 */
export function serializeMatchResult(result: MatchResult): string {
  for (const match of result.matchSuggestions) {
    for (const team of match.teams) for (const ticket of team.tickets) normalise(ticket);
  }
  for (const ticket of result.unmatchedTickets) normalise(ticket);
  return JSON.stringify(result).replace(INTEGRAL_RATING, "$1.0");
}
