import { BackfillRequestIdField } from "./backfill.js";
import { type ErrorCode, errorCodeInfo } from "./error-codes.js";
import { GameIdField, SeasonNameField } from "./fields.js";
import { USER_ROLES, type UserRole } from "./identity.js";
import { MatchIdField } from "./matches.js";
import type { MessageAction } from "./messages.js";
import { PlayerIdField } from "./players.js";
import type { SchemaName } from "./schema-registry.js";
import { PlayerHistoryQuerySchema, StatsSeasonsQueryField } from "./statistics.js";

/**
 * The one action table: every operation of the hosted API, once. The gateway's REST routing and
 * role checks, its WebSocket dispatcher, the OpenAPI document and docs/api.md are generated from
 * it; stats implements each entry once.
 *
 * - `path` is OpenAPI-style (`/games/{gameId}`); `params` give each path parameter's schema, and
 *   `query` each query parameter's (a query parameter not listed there is refused).
 * - `answers` maps each success status to the schema of its body (`null`: no body). An operation
 *   with two success answers (`204`, or the body with `Prefer: return=representation`) says so
 *   with `prefer`.
 * - `errors` are the statuses the operation itself may answer besides the ones every
 *   authenticated route may (`COMMON_HOSTED_ERRORS`), the role check's 403 and those of a body
 *   (`ownErrorStatuses`).
 * - `action` is the operation's WebSocket action, when there is one.
 */
export interface HostedOperation {
  operationId: string;
  action: MessageAction | null;
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  summary: string;
  roles: readonly UserRole[];
  params: Readonly<Record<string, object>>;
  query?: Readonly<Record<string, object>>;
  body?: SchemaName;
  /** The body may be left out (an empty request means `{}`); otherwise it is required. */
  optionalBody?: true;
  answers: Readonly<Record<number, SchemaName | null>>;
  prefer?: { plain: number; representation: number };
  errors: readonly number[];
  tag: "games" | "queue" | "matches" | "backfill" | "statistics" | "seasons";
}

const ANY_ROLE = USER_ROLES;
const ADMIN_ONLY = ["admin"] as const satisfies readonly UserRole[];

const game = { gameId: GameIdField } as const;
const match = { gameId: GameIdField, matchId: MatchIdField } as const;
const backfill = { ...match, backfillingRequestId: BackfillRequestIdField } as const;
const player = { playerId: PlayerIdField } as const;

export const HOSTED_OPERATIONS = [
  {
    operationId: "putGame",
    action: null,
    method: "PUT",
    path: "/games/{gameId}",
    summary: "Create or update a game's configuration",
    roles: ADMIN_ONLY,
    params: game,
    body: "GameConfigRequest",
    answers: { 200: "GameConfig" },
    errors: [],
    tag: "games",
  },
  {
    operationId: "getGame",
    action: null,
    method: "GET",
    path: "/games/{gameId}",
    summary: "A game's configuration",
    roles: ANY_ROLE,
    params: game,
    answers: { 200: "GameConfig" },
    errors: [404],
    tag: "games",
  },
  {
    operationId: "addPlayers",
    action: "addPlayer",
    method: "POST",
    path: "/games/{gameId}/players",
    summary: "Add players (a party when partyName is given) to the queue",
    roles: ANY_ROLE,
    params: game,
    body: "SubmitPlayersRequest",
    answers: { 204: null, 201: "SubmitPlayersResponse" },
    prefer: { plain: 204, representation: 201 },
    errors: [404, 409],
    tag: "queue",
  },
  {
    operationId: "getPlayers",
    action: "getPlayers",
    method: "GET",
    path: "/games/{gameId}/players",
    summary: "The game's waiting and matched players",
    roles: ANY_ROLE,
    params: game,
    answers: { 200: "PlayerList" },
    errors: [404],
    tag: "queue",
  },
  {
    operationId: "removePlayer",
    action: "removePlayer",
    method: "DELETE",
    path: "/games/{gameId}/players/{playerId}",
    summary: "Remove a player from the queue (from a match too with force=true)",
    roles: ANY_ROLE,
    params: { ...game, ...player },
    query: { force: { type: "boolean", default: false } },
    answers: { 204: null, 200: "RemovePlayerResponsePayload" },
    prefer: { plain: 204, representation: 200 },
    errors: [404, 409],
    tag: "queue",
  },
  {
    operationId: "clearQueue",
    action: null,
    method: "DELETE",
    path: "/games/{gameId}/queue",
    summary: "Remove every waiting player and fail every suggested or delivered match",
    roles: ANY_ROLE,
    params: game,
    answers: { 200: "QueueCleared" },
    errors: [404],
    tag: "queue",
  },
  {
    operationId: "getMatches",
    action: "getMatches",
    method: "POST",
    path: "/games/{gameId}/matches",
    summary: "The match suggestions not delivered yet, now marked delivered",
    roles: ANY_ROLE,
    params: game,
    answers: { 200: "DeliveredMatchList" },
    errors: [404],
    tag: "matches",
  },
  {
    operationId: "acknowledgeMatch",
    action: "matchSuggestionDelivery",
    method: "POST",
    path: "/games/{gameId}/matches/{matchId}/delivery",
    summary:
      "Acknowledge a pushed match suggestion (optional; confirming, failing or fetching it acknowledges it too)",
    roles: ANY_ROLE,
    params: match,
    answers: { 204: null },
    errors: [404],
    tag: "matches",
  },
  {
    operationId: "getMatch",
    action: null,
    method: "GET",
    path: "/games/{gameId}/matches/{matchId}",
    summary: "A match with its status",
    roles: ANY_ROLE,
    params: match,
    answers: { 200: "Match" },
    errors: [404],
    tag: "matches",
  },
  {
    operationId: "confirmMatch",
    action: "updateMatchConfirmed",
    method: "POST",
    path: "/games/{gameId}/matches/{matchId}/statuses/confirmed",
    summary: "Confirm a match (players in remove/requeue fail it instead)",
    roles: ANY_ROLE,
    params: match,
    body: "ConfirmMatchRequest",
    optionalBody: true,
    answers: { 204: null },
    errors: [404, 409],
    tag: "matches",
  },
  {
    operationId: "failMatch",
    action: "updateMatchFailed",
    method: "POST",
    path: "/games/{gameId}/matches/{matchId}/statuses/failed",
    summary: "Fail a match; players in neither list are requeued",
    roles: ANY_ROLE,
    params: match,
    body: "FailMatchRequest",
    optionalBody: true,
    answers: { 204: null, 200: "FailMatchResponse" },
    prefer: { plain: 204, representation: 200 },
    errors: [404, 409],
    tag: "matches",
  },
  {
    operationId: "completeMatch",
    action: "updateMatchCompleted",
    method: "POST",
    path: "/games/{gameId}/matches/{matchId}/statuses/completed",
    summary: "Report a match's result: ratings, statistics and leaderboards are updated once",
    roles: ANY_ROLE,
    params: match,
    body: "CompleteMatchRequest",
    answers: { 200: "CompleteMatchResponse" },
    errors: [404, 409],
    tag: "matches",
  },
  {
    operationId: "requestBackfill",
    action: "requestBackfilling",
    method: "POST",
    path: "/games/{gameId}/matches/{matchId}/backfill",
    summary: "Find a waiting player for a dropped player's seat",
    roles: ANY_ROLE,
    params: match,
    body: "BackfillRequest",
    answers: { 201: "BackfillCreated" },
    errors: [404, 409],
    tag: "backfill",
  },
  {
    operationId: "getBackfill",
    action: null,
    method: "GET",
    path: "/games/{gameId}/matches/{matchId}/backfill/{backfillingRequestId}",
    summary: "A backfill request's state and its replacement player",
    roles: ANY_ROLE,
    params: backfill,
    answers: { 200: "BackfillStatus" },
    errors: [404],
    tag: "backfill",
  },
  {
    operationId: "cancelBackfill",
    action: "cancelBackfillingRequest",
    method: "DELETE",
    path: "/games/{gameId}/matches/{matchId}/backfill/{backfillingRequestId}",
    summary: "Cancel a backfill request",
    roles: ANY_ROLE,
    params: backfill,
    answers: { 200: "BackfillStatus" },
    errors: [404],
    tag: "backfill",
  },
  {
    operationId: "getPlayerStats",
    action: "getPlayerStats",
    method: "GET",
    path: "/players/{playerId}",
    summary: "A player's statistics per season and mode",
    roles: ANY_ROLE,
    params: player,
    query: { seasons: StatsSeasonsQueryField },
    answers: { 200: "RestPlayerStats" },
    errors: [404],
    tag: "statistics",
  },
  {
    operationId: "getPlayerHistory",
    action: null,
    method: "GET",
    path: "/players/{playerId}/history",
    summary: "A player's latest results, newest first",
    roles: ANY_ROLE,
    params: player,
    query: PlayerHistoryQuerySchema.properties,
    answers: { 200: "PlayerHistory" },
    errors: [404],
    tag: "statistics",
  },
  {
    operationId: "getLeaderboard",
    action: null,
    method: "POST",
    path: "/games/{gameId}/leaderboard",
    summary: "A leaderboard: from the top, from a rank, or around a player",
    roles: ANY_ROLE,
    params: game,
    body: "LeaderboardRequest",
    answers: { 200: "LeaderboardResponse" },
    errors: [404],
    tag: "statistics",
  },
  {
    operationId: "listSeasons",
    action: null,
    method: "GET",
    path: "/seasons",
    summary: "The tenant's seasons, the current one marked",
    roles: ANY_ROLE,
    params: {},
    answers: { 200: "SeasonList" },
    errors: [],
    tag: "seasons",
  },
  {
    operationId: "startSeason",
    action: null,
    method: "POST",
    path: "/seasons",
    summary: "Start the next season",
    roles: ADMIN_ONLY,
    params: {},
    body: "CreateSeasonRequest",
    optionalBody: true,
    answers: { 201: "Season" },
    errors: [409],
    tag: "seasons",
  },
  {
    operationId: "cancelSeason",
    action: null,
    method: "DELETE",
    path: "/seasons/{season}",
    summary: "Cancel a season that has not started (409 once it has)",
    roles: ADMIN_ONLY,
    params: { season: { ...SeasonNameField, description: "A season that has not started" } },
    answers: { 204: null },
    errors: [404, 409],
    tag: "seasons",
  },
  {
    operationId: "resetSeason",
    action: null,
    method: "POST",
    path: "/admin/season/reset",
    summary: "Idem's season reset: start a season with a carry-over per game",
    roles: ADMIN_ONLY,
    params: {},
    body: "SeasonResetRequest",
    answers: { 201: "Season" },
    errors: [409],
    tag: "seasons",
  },
] as const satisfies readonly HostedOperation[];

export type HostedOperationId = (typeof HOSTED_OPERATIONS)[number]["operationId"];

/**
 * Statuses every authenticated hosted route may answer, whatever the operation: 431 from the HTTP
 * parser, before any route.
 */
export const COMMON_HOSTED_ERRORS = [400, 401, 429, 431, 502, 503, 504] as const;

/** Statuses an operation with a body may answer besides those: the body parser's limit and encodings. */
export const BODY_ERRORS = [413, 415] as const;

/**
 * The error statuses of an operation besides the common ones, sorted: 403 when a role may not
 * call it (every token has a role, so an operation open to all of them never answers 403), those
 * of a body, and its own.
 */
export function ownErrorStatuses(op: HostedOperation): number[] {
  const restricted = USER_ROLES.some((role) => !op.roles.includes(role));
  const statuses = [...(restricted ? [403] : []), ...(op.body ? BODY_ERRORS : []), ...op.errors];
  return [...new Set<number>(statuses)].sort((a, b) => a - b);
}

/** Every error status of a hosted operation, sorted. */
export function operationErrorStatuses(op: HostedOperation): number[] {
  return [...new Set<number>([...COMMON_HOSTED_ERRORS, ...ownErrorStatuses(op)])].sort((a, b) => a - b);
}

/** Codes no hosted operation answers: the matchmaker's and the license service's own. */
const NOT_HOSTED_CODES: ReadonlySet<ErrorCode> = new Set([
  "TOO_MANY_TICKETS",
  "EDITION_REQUIRED",
  "LICENSE_INVALID",
  "LICENSE_UNAVAILABLE",
  // Answered for a path or method outside the table, never by an operation.
  "ROUTE_NOT_FOUND",
  "METHOD_NOT_ALLOWED",
]);

/** The codes a hosted operation's answer with this status may carry (every one of them, in table order). */
export function hostedErrorCodes(status: number): ErrorCode[] {
  return (Object.keys(errorCodeInfo) as ErrorCode[]).filter(
    (code) => errorCodeInfo[code].status === status && !NOT_HOSTED_CODES.has(code),
  );
}

/** The operation behind a WebSocket action, for the dispatcher. */
export function operationOfAction(action: MessageAction): HostedOperation | undefined {
  return (HOSTED_OPERATIONS as readonly HostedOperation[]).find((op) => op.action === action);
}

const PATH_PARAMETER = /\{([A-Za-z0-9_]+)\}/g;

/** The hosted operation named `operationId` (the table's entry). */
export function hostedOperation(operationId: HostedOperationId): HostedOperation {
  const op = (HOSTED_OPERATIONS as readonly HostedOperation[]).find((o) => o.operationId === operationId);
  if (op === undefined) throw new Error(`No hosted operation ${operationId}`);
  return op;
}

/** `/games/{gameId}` → `/games/:gameId` (express), in one place. */
export function expressPath(path: string): string {
  return path.replace(PATH_PARAMETER, ":$1");
}

/** `/games/{gameId}` with `{gameId: "a b"}` → `/games/a%20b`: a concrete path to call. */
export function fillPath(path: string, params: Readonly<Record<string, unknown>>): string {
  return path.replace(PATH_PARAMETER, (_m, name: string) => encodeURIComponent(String(params[name])));
}
