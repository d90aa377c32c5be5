import {
  type FieldError,
  fillPath,
  type HostedOperation,
  internalOperation,
  type MessageAction,
  type MessageResponsePayloads,
  operationOfAction,
} from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { UpstreamAnswer } from "../routing/stats-proxy.js";
import type { UpstreamCall } from "../routing/upstream-call.js";

/**
 * How each WebSocket action becomes the REST call the action table gives it, and how stats'
 * answer becomes the action's response payload. Pure: no I/O, so every mapping is testable alone.
 */

/** The upstream request of an action, without the tenant, role and request id. */
export type ActionRequest = Pick<UpstreamCall, "method" | "path" | "prefer" | "body">;

type Payload = Record<string, unknown>;

/**
 * Stats serves getPlayerStats in its message shape (PlayerStats with `rank` and `isCurrentSeason`,
 * which the REST `GET /players/{playerId}` leaves out) at an internal operation of its own.
 */
const playerStatsAction = internalOperation("getPlayerStatsAction");

/** Where a message's parameters are: every field error of a WebSocket answer points under it. */
export const PAYLOAD_POINTER = "/payload";

/** Asks stats for the body where an operation answers 204 by default (RFC 7240). */
const RETURN_REPRESENTATION = "return=representation";

/** The upstream request of a validated payload; `subscribe` is the gateway's own and has none. */
export function actionRequestOf(
  action: Exclude<MessageAction, "subscribe">,
  payload: Payload,
): ActionRequest {
  if (action === "getPlayerStats") {
    return { method: playerStatsAction.method, path: playerStatsAction.path, body: JSON.stringify(payload) };
  }
  const op = operationOfAction(action);
  if (op === undefined) throw new Error(`No operation in the action table for ${action}`);
  const consumed = new Set(Object.keys(op.params));
  const path = fillPath(op.path, payload);
  const query = new URLSearchParams();
  for (const name of Object.keys(op.query ?? {})) {
    consumed.add(name);
    const value = payload[name];
    // Defaults need no parameter: `force: false` is the same as no force.
    if (value === undefined || value === false) continue;
    query.set(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  const request: ActionRequest = { method: op.method, path: query.size > 0 ? `${path}?${query}` : path };
  if (op.body !== undefined) {
    request.body = JSON.stringify(
      Object.fromEntries(Object.entries(payload).filter(([k]) => !consumed.has(k))),
    );
  }
  if (op.prefer !== undefined) request.prefer = RETURN_REPRESENTATION;
  return request;
}

/** The error of a message: the status stats (or the gateway) would answer over REST. */
export interface MessageError {
  code: number;
  message: string;
  errors?: FieldError[];
}

/**
 * Stats' problem answer as a message error; `undefined` for a success. Stats points at the REST
 * body it was sent, which is the message's payload without its path parameters under the same
 * names, so each pointer moves under `/payload`: the one convention of every WebSocket error, the
 * gateway's own validation included, naming the field in what the client sent.
 */
export function errorOfAnswer(answer: UpstreamAnswer): MessageError | undefined {
  if (answer.status < 400) return undefined;
  const problem = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as {
    detail?: unknown;
    title?: unknown;
    errors?: unknown;
  };
  const message =
    typeof problem.detail === "string"
      ? problem.detail
      : typeof problem.title === "string"
        ? problem.title
        : `The stats service answered ${answer.status}`;
  const errors = Array.isArray(problem.errors)
    ? problem.errors
        .filter(isFieldError)
        .map(({ pointer, detail }) => ({ pointer: `${PAYLOAD_POINTER}${pointer}`, detail }))
    : undefined;
  return {
    code: answer.status >= 400 && answer.status <= 599 ? answer.status : 502,
    message,
    ...(errors !== undefined && errors.length > 0 ? { errors } : {}),
  };
}

/** A gateway error (AppError or anything thrown) as a message error. */
export function errorOfThrown(err: unknown): MessageError {
  if (err instanceof AppError) {
    return { code: err.status, message: err.detail, ...(err.errors ? { errors: err.errors } : {}) };
  }
  return { code: 500, message: "Internal error" };
}

/**
 * The response payload of a successful action. Every game-scoped answer echoes `gameId` (and
 * `matchId`); lists are wrapped; a 204 that stats answered without the representation still
 * answers what the gateway knows.
 */
export function responsePayloadOf(
  action: Exclude<MessageAction, "subscribe">,
  payload: Payload,
  body: unknown,
): MessageResponsePayloads[typeof action] {
  const gameId = payload.gameId as string;
  const matchId = payload.matchId as string;
  const answer = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  switch (action) {
    case "addPlayer":
      return { gameId, players: listOf(answer.players) } as MessageResponsePayloads["addPlayer"];
    case "removePlayer":
      return {
        gameId,
        playerId: payload.playerId as string,
        reference: typeof answer.reference === "string" ? answer.reference : null,
      };
    case "getPlayers":
      return { gameId, players: listOf(body) } as MessageResponsePayloads["getPlayers"];
    case "getMatches":
      return { gameId, matches: listOf(body) } as MessageResponsePayloads["getMatches"];
    case "updateMatchConfirmed":
    case "matchSuggestionDelivery":
      return { gameId, matchId };
    case "updateMatchFailed":
      return {
        gameId,
        matchId,
        requeued: listOf(answer.requeued),
        removed: listOf(answer.removed),
      } as MessageResponsePayloads["updateMatchFailed"];
    case "updateMatchCompleted":
      return {
        gameId,
        matchId,
        players: listOf(answer.players),
      } as MessageResponsePayloads["updateMatchCompleted"];
    case "requestBackfilling":
      return { gameId, matchId, backfillingRequestId: String(answer.backfillingRequestId) };
    case "cancelBackfillingRequest":
      return { gameId, matchId, backfillingRequestId: payload.backfillingRequestId as string };
    case "getPlayerStats":
      return body as MessageResponsePayloads["getPlayerStats"];
  }
}

/** The operation behind an action (for its roles), `undefined` for the gateway's own `subscribe`. */
export function operationFor(action: MessageAction): HostedOperation | undefined {
  return action === "subscribe" ? undefined : operationOfAction(action);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isFieldError(value: unknown): value is FieldError {
  const v = value as Partial<FieldError> | null;
  return typeof v?.pointer === "string" && typeof v.detail === "string";
}
