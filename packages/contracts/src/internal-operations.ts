import { GameIdField, idField } from "./fields.js";
import type { SchemaName } from "./schema-registry.js";

/**
 * The calls the gateway makes to stats on its own behalf, not a client's: each once, for both
 * sides. Stats mounts them next to the hosted operations (same service token, tenant and role
 * headers); the gateway calls them with `fillPath`. They are not part of the public API, so the
 * OpenAPI document leaves them out.
 */
export interface InternalOperation {
  operationId: string;
  method: "POST";
  path: string;
  summary: string;
  params: Readonly<Record<string, object>>;
  body?: SchemaName;
  answers: Readonly<Record<number, SchemaName | null>>;
}

/** A gateway connection's id (a UUID today; any short opaque string is accepted). */
export const ConnectionIdField = idField(200);

export const INTERNAL_OPERATIONS = [
  {
    operationId: "getPlayerStatsAction",
    method: "POST",
    path: "/internal/actions/getPlayerStats",
    summary:
      "The getPlayerStats WebSocket action: its payload in, PlayerStats with ranks out (the REST shape leaves them out)",
    params: {},
    body: "GetPlayerStatsPayload",
    answers: { 200: "GetPlayerStatsResponsePayload" },
  },
  {
    operationId: "connectionClosed",
    method: "POST",
    path: "/internal/connections/{connectionId}/closed",
    summary: "A subscribed WebSocket connection closed: what it never acknowledged is offered to another",
    params: { connectionId: ConnectionIdField },
    answers: { 204: null },
  },
  {
    operationId: "getLeaderboardBatch",
    method: "POST",
    path: "/internal/games/{gameId}/leaderboard-reads",
    summary:
      "Reads of one board sent together: each runs as getLeaderboard does (its role, its body's checks); a failed one answers its status only",
    params: { gameId: GameIdField },
    body: "LeaderboardReadBatch",
    answers: { 200: "LeaderboardReadBatchAnswer" },
  },
] as const satisfies readonly InternalOperation[];

export type InternalOperationId = (typeof INTERNAL_OPERATIONS)[number]["operationId"];

/** The internal operation named `operationId` (the table's entry, typed). */
export function internalOperation<Id extends InternalOperationId>(
  operationId: Id,
): Extract<(typeof INTERNAL_OPERATIONS)[number], { operationId: Id }> {
  const op = INTERNAL_OPERATIONS.find((o) => o.operationId === operationId);
  if (op === undefined) throw new Error(`No internal operation ${operationId}`);
  return op as Extract<(typeof INTERNAL_OPERATIONS)[number], { operationId: Id }>;
}
