import type { FromSchema } from "json-schema-to-ts";
import {
  BackfillCreatedSchema,
  BackfillRequestIdField,
  BackfillRequestSchema,
  BackfillSuggestionSchema,
} from "./backfill.js";
import { GameIdField, SeasonNameField } from "./fields.js";
import {
  CompleteMatchRequestSchema,
  CompleteMatchResponseSchema,
  ConfirmMatchRequestSchema,
  DeliveredMatchObject,
  FailMatchRequestSchema,
  FailMatchResponseSchema,
  MatchIdField,
  MatchPlayerObject,
} from "./matches.js";
import {
  PlayerIdField,
  PlayerListSchema,
  PlayerReferenceField,
  SubmitPlayersRequestSchema,
  SubmitPlayersResponseSchema,
} from "./players.js";
import { MAX_STATS_SEASONS, PlayerStatsSchema } from "./statistics.js";
import { compile, type Validator } from "./validation.js";

/**
 * The WebSocket message transport (`GET /ws`), Idem's envelope:
 * - request  `{action, messageId?, payload}`;
 * - answer   `{action: "<action>Response", messageId, payload}`;
 * - error    `{action: "<action>Response", messageId, error: {code, message}}`, `code` the HTTP
 *   status the REST API would have answered;
 * - push     `{action: "matchSuggestion" | "backfillingMatchSuggestion" | "playersRemoved",
 *   messageId: null, payload}` to subscribed connections; `{action: "keepAlive", messageId, payload:
 *   {}}` to every connection, its `messageId` a new id each round.
 *
 * Every REST operation is an action; its payload is the REST body plus the path parameters
 * (`gameId`, `matchId`, ...). Payloads stay open like the REST bodies they mirror, and so does the
 * request envelope: Idem documents `messageId` as optional, so a missing one is answered as `null`.
 * Answers and pushes are ours and closed, with one rule: every payload is an object, so the two
 * REST answers that are bare arrays are wrapped (`{gameId, players}`, `{gameId, matches}`), every
 * game-scoped answer echoes `gameId` (and `matchId`), as Idem's SDKs read them, and the REST 204s
 * answer the ids they acted on.
 */

export const MESSAGE_ACTIONS = [
  "addPlayer",
  "removePlayer",
  "getPlayers",
  "getMatches",
  "updateMatchConfirmed",
  "updateMatchFailed",
  "updateMatchCompleted",
  "requestBackfilling",
  "cancelBackfillingRequest",
  "getPlayerStats",
  "subscribe",
  "matchSuggestionDelivery",
] as const;
export type MessageAction = (typeof MESSAGE_ACTIONS)[number];

/**
 * Server-initiated messages. `keepAlive` has an empty payload and goes to every connection once a
 * minute; `playersRemoved` goes to every subscriber of the game when waiting players expire.
 */
export const PUSH_ACTIONS = [
  "matchSuggestion",
  "backfillingMatchSuggestion",
  "playersRemoved",
  "keepAlive",
] as const;
export type PushAction = (typeof PUSH_ACTIONS)[number];

export type ResponseAction<A extends string = MessageAction> = `${A}Response`;

/** The action of the answer to `action`. */
export function responseAction<A extends string>(action: A): ResponseAction<A> {
  return `${action}Response`;
}

// Embedded copies of top-level schemas lose their `$id`: ajv rejects an id registered twice.
const { $id: _playerList, ...PlayerListObject } = PlayerListSchema;
const { $id: _playerStats, ...PlayerStatsObject } = PlayerStatsSchema;
const { $id: _backfillSuggestion, ...BackfillSuggestionObject } = BackfillSuggestionSchema;

const MessageIdField = { type: ["string", "null"], maxLength: 256 } as const;
const EmptyObject = { type: "object", additionalProperties: false } as const;

export const ClientMessageSchema = {
  $id: "ClientMessage",
  type: "object",
  required: ["action"],
  properties: {
    action: { type: "string", enum: MESSAGE_ACTIONS },
    messageId: { ...MessageIdField, description: "Echoed in the answer; null when omitted." },
    payload: { type: "object", description: "The action's parameters; {} when omitted." },
  },
} as const;
export type ClientMessage = FromSchema<typeof ClientMessageSchema>;

// ---- request payloads: the REST body plus the path parameters ----

const GameScoped = { gameId: GameIdField } as const;
const MatchScoped = { gameId: GameIdField, matchId: MatchIdField } as const;

export const AddPlayerPayloadSchema = {
  $id: "AddPlayerPayload",
  type: "object",
  required: ["gameId", ...SubmitPlayersRequestSchema.required],
  properties: { ...GameScoped, ...SubmitPlayersRequestSchema.properties },
} as const;

export const RemovePlayerPayloadSchema = {
  $id: "RemovePlayerPayload",
  type: "object",
  required: ["gameId", "playerId"],
  properties: {
    ...GameScoped,
    playerId: PlayerIdField,
    force: { type: "boolean", description: "Remove the player even from a match, like ?force=true." },
  },
} as const;

export const GetPlayersPayloadSchema = {
  $id: "GetPlayersPayload",
  type: "object",
  required: ["gameId"],
  properties: GameScoped,
} as const;

export const GetMatchesPayloadSchema = { ...GetPlayersPayloadSchema, $id: "GetMatchesPayload" } as const;

/** Games one connection may subscribe to at once. */
export const MAX_SUBSCRIBED_GAMES = 100;
const SubscriptionPriorityField = {
  type: "integer",
  minimum: -1000,
  maximum: 1000,
  description: "Pushes go to the subscribed connections of the highest priority present (default 0).",
} as const;
const SubscriptionRateLimitField = {
  type: ["integer", "null"],
  minimum: 1,
  maximum: 100000,
  description: "Pushes per minute to this connection at most; null or omitted: no limit.",
} as const;

/**
 * Receive the games' matchSuggestion, backfillingMatchSuggestion and playersRemoved pushes: one
 * game (`gameId`, as Idem's SDK sends it), several (`gameIds`), or both; at least one. Subscribing
 * again replaces the connection's subscription.
 */
export const SubscribePayloadSchema = {
  $id: "SubscribePayload",
  type: "object",
  // Without gameIds, gameId is required: one error at /gameId rather than anyOf's three.
  if: { properties: { gameIds: true }, required: ["gameIds"] },
  else: { properties: { gameId: true }, required: ["gameId"] },
  properties: {
    gameIds: {
      type: "array",
      minItems: 1,
      maxItems: MAX_SUBSCRIBED_GAMES,
      uniqueItems: true,
      items: GameIdField,
    },
    gameId: GameIdField,
    priority: SubscriptionPriorityField,
    rateLimit: SubscriptionRateLimitField,
  },
} as const;

export const UpdateMatchConfirmedPayloadSchema = {
  $id: "UpdateMatchConfirmedPayload",
  type: "object",
  required: ["gameId", "matchId"],
  properties: { ...MatchScoped, ...ConfirmMatchRequestSchema.properties },
} as const;

export const UpdateMatchFailedPayloadSchema = {
  $id: "UpdateMatchFailedPayload",
  type: "object",
  required: ["gameId", "matchId"],
  properties: { ...MatchScoped, ...FailMatchRequestSchema.properties },
} as const;

export const UpdateMatchCompletedPayloadSchema = {
  $id: "UpdateMatchCompletedPayload",
  type: "object",
  required: ["gameId", "matchId", ...CompleteMatchRequestSchema.required],
  properties: { ...MatchScoped, ...CompleteMatchRequestSchema.properties },
} as const;

export const RequestBackfillingPayloadSchema = {
  $id: "RequestBackfillingPayload",
  type: "object",
  required: ["gameId", "matchId", ...BackfillRequestSchema.required],
  properties: { ...MatchScoped, ...BackfillRequestSchema.properties },
} as const;

export const CancelBackfillingRequestPayloadSchema = {
  $id: "CancelBackfillingRequestPayload",
  type: "object",
  required: ["gameId", "matchId", "backfillingRequestId"],
  properties: { ...MatchScoped, backfillingRequestId: BackfillRequestIdField },
} as const;

/** Seasons omitted: the current and the previous one (only S1 while S1 is current). */
export const GetPlayerStatsPayloadSchema = {
  $id: "GetPlayerStatsPayload",
  type: "object",
  required: ["playerId"],
  properties: {
    playerId: PlayerIdField,
    seasons: { type: "array", maxItems: MAX_STATS_SEASONS, uniqueItems: true, items: SeasonNameField },
  },
} as const;

/**
 * Acknowledges a `matchSuggestion` push (optional: confirming, failing or fetching the match
 * acknowledges it too). Idempotent.
 */
export const MatchSuggestionDeliveryPayloadSchema = {
  $id: "MatchSuggestionDeliveryPayload",
  type: "object",
  required: ["gameId", "matchId"],
  properties: MatchScoped,
} as const;

const { $id: _getPlayerStatsPayload, ...GetPlayerStatsPayloadObject } = GetPlayerStatsPayloadSchema;

export const MESSAGE_PAYLOAD_SCHEMAS = {
  addPlayer: AddPlayerPayloadSchema,
  removePlayer: RemovePlayerPayloadSchema,
  getPlayers: GetPlayersPayloadSchema,
  getMatches: GetMatchesPayloadSchema,
  updateMatchConfirmed: UpdateMatchConfirmedPayloadSchema,
  updateMatchFailed: UpdateMatchFailedPayloadSchema,
  updateMatchCompleted: UpdateMatchCompletedPayloadSchema,
  requestBackfilling: RequestBackfillingPayloadSchema,
  cancelBackfillingRequest: CancelBackfillingRequestPayloadSchema,
  getPlayerStats: GetPlayerStatsPayloadSchema,
  subscribe: SubscribePayloadSchema,
  matchSuggestionDelivery: MatchSuggestionDeliveryPayloadSchema,
} as const satisfies Record<MessageAction, object>;

export type MessagePayloads = {
  [A in MessageAction]: FromSchema<(typeof MESSAGE_PAYLOAD_SCHEMAS)[A]>;
};
export type MessagePayload<A extends MessageAction> = MessagePayloads[A];

// ---- answer payloads ----

const MatchIdsAnswer = {
  type: "object",
  required: ["gameId", "matchId"],
  properties: MatchScoped,
  additionalProperties: false,
} as const;
const { $id: _submitPlayersResponse, ...SubmitPlayersResponseObject } = SubmitPlayersResponseSchema;
const { $id: _failMatchResponse, ...FailMatchResponseObject } = FailMatchResponseSchema;
const { $id: _completeMatchResponse, ...CompleteMatchResponseObject } = CompleteMatchResponseSchema;

export const MESSAGE_RESPONSE_PAYLOAD_SCHEMAS = {
  addPlayer: {
    $id: "AddPlayerResponsePayload",
    type: "object",
    required: ["gameId", ...SubmitPlayersResponseObject.required],
    properties: { ...GameScoped, ...SubmitPlayersResponseObject.properties },
    additionalProperties: false,
  },
  removePlayer: {
    $id: "RemovePlayerResponsePayload",
    type: "object",
    required: ["gameId", "playerId", "reference"],
    properties: { ...GameScoped, playerId: PlayerIdField, reference: PlayerReferenceField },
    additionalProperties: false,
  },
  getPlayers: {
    $id: "GetPlayersResponsePayload",
    type: "object",
    required: ["gameId", "players"],
    properties: { ...GameScoped, players: PlayerListObject },
    additionalProperties: false,
  },
  getMatches: {
    $id: "GetMatchesResponsePayload",
    type: "object",
    required: ["gameId", "matches"],
    properties: { ...GameScoped, matches: { type: "array", items: DeliveredMatchObject } },
    additionalProperties: false,
  },
  updateMatchConfirmed: { ...MatchIdsAnswer, $id: "UpdateMatchConfirmedResponsePayload" },
  updateMatchFailed: {
    $id: "UpdateMatchFailedResponsePayload",
    type: "object",
    required: ["gameId", "matchId", ...FailMatchResponseObject.required],
    properties: { ...MatchScoped, ...FailMatchResponseObject.properties },
    additionalProperties: false,
  },
  updateMatchCompleted: {
    $id: "UpdateMatchCompletedResponsePayload",
    type: "object",
    required: ["gameId", "matchId", ...CompleteMatchResponseObject.required],
    properties: { ...MatchScoped, ...CompleteMatchResponseObject.properties },
    additionalProperties: false,
  },
  requestBackfilling: {
    $id: "RequestBackfillingResponsePayload",
    type: "object",
    required: ["gameId", "matchId", ...BackfillCreatedSchema.required],
    properties: { ...MatchScoped, ...BackfillCreatedSchema.properties },
    additionalProperties: false,
  },
  cancelBackfillingRequest: {
    $id: "CancelBackfillingRequestResponsePayload",
    type: "object",
    required: ["gameId", "matchId", "backfillingRequestId"],
    properties: { ...MatchScoped, backfillingRequestId: BackfillRequestIdField },
    additionalProperties: false,
  },
  getPlayerStats: { ...PlayerStatsSchema, $id: "GetPlayerStatsResponsePayload" },
  subscribe: {
    $id: "SubscribeResponsePayload",
    type: "object",
    required: ["gameIds", "priority", "rateLimit"],
    properties: {
      gameIds: { type: "array", minItems: 1, items: GameIdField },
      priority: SubscriptionPriorityField,
      rateLimit: SubscriptionRateLimitField,
    },
    additionalProperties: false,
  },
  matchSuggestionDelivery: { ...MatchIdsAnswer, $id: "MatchSuggestionDeliveryResponsePayload" },
} as const satisfies Record<MessageAction, object>;

export type MessageResponsePayloads = {
  [A in MessageAction]: FromSchema<(typeof MESSAGE_RESPONSE_PAYLOAD_SCHEMAS)[A]>;
};

// ---- envelopes of what the server sends ----

export const ServerResponseSchema = {
  $id: "ServerResponse",
  type: "object",
  required: ["action", "messageId", "payload"],
  properties: {
    action: { type: "string", pattern: "Response$" },
    messageId: MessageIdField,
    payload: { type: "object" },
  },
  additionalProperties: false,
} as const;
export type ServerResponse = FromSchema<typeof ServerResponseSchema>;

/**
 * An error answer. `code` is the HTTP status the REST API would answer (400, 404, 409, ...);
 * validation failures add `errors`, the same JSON-pointer list as a problem+json body. A message
 * whose action cannot be read is answered with action `errorResponse`.
 */
export const ServerErrorMessageSchema = {
  $id: "ServerErrorMessage",
  type: "object",
  required: ["action", "messageId", "error"],
  properties: {
    action: { type: "string", pattern: "Response$" },
    messageId: MessageIdField,
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "integer", minimum: 400, maximum: 599 },
        message: { type: "string" },
        errors: {
          type: "array",
          items: {
            type: "object",
            required: ["pointer", "detail"],
            properties: { pointer: { type: "string" }, detail: { type: "string" } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
export type ServerErrorMessage = FromSchema<typeof ServerErrorMessageSchema>;

/** The action of an error answer to a message whose action could not be read. */
export const UNREADABLE_ACTION_RESPONSE = "errorResponse";

export const GetPlayerStatsMessageSchema = {
  $id: "GetPlayerStatsMessage",
  type: "object",
  required: ["action", "payload"],
  properties: {
    action: { type: "string", const: "getPlayerStats" },
    messageId: MessageIdField,
    payload: GetPlayerStatsPayloadObject,
  },
} as const;
export type GetPlayerStatsMessage = FromSchema<typeof GetPlayerStatsMessageSchema>;

export const GetPlayerStatsResponseMessageSchema = {
  $id: "GetPlayerStatsResponseMessage",
  type: "object",
  required: ["action", "messageId", "payload"],
  properties: {
    action: { type: "string", const: "getPlayerStatsResponse" },
    messageId: MessageIdField,
    payload: PlayerStatsObject,
  },
  additionalProperties: false,
} as const;
export type GetPlayerStatsResponseMessage = FromSchema<typeof GetPlayerStatsResponseMessageSchema>;

/** Push of a new match suggestion (already marked delivered) to a subscribed connection. */
export const MatchSuggestionMessageSchema = {
  $id: "MatchSuggestionMessage",
  type: "object",
  required: ["action", "messageId", "payload"],
  properties: {
    action: { type: "string", const: "matchSuggestion" },
    messageId: { type: "null" },
    payload: {
      type: "object",
      required: ["gameId", "match"],
      properties: { ...GameScoped, match: DeliveredMatchObject },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
export type MatchSuggestionMessage = FromSchema<typeof MatchSuggestionMessageSchema>;

export const BackfillingMatchSuggestionMessageSchema = {
  $id: "BackfillingMatchSuggestionMessage",
  type: "object",
  required: ["action", "messageId", "payload"],
  properties: {
    action: { type: "string", const: "backfillingMatchSuggestion" },
    messageId: { type: "null" },
    payload: BackfillSuggestionObject,
  },
  additionalProperties: false,
} as const;
export type BackfillingMatchSuggestionMessage = FromSchema<typeof BackfillingMatchSuggestionMessageSchema>;

/** Waiting players removed from the queue (today only for waiting longer than `maxQueueSeconds`). */
export const PlayersRemovedMessageSchema = {
  $id: "PlayersRemovedMessage",
  type: "object",
  required: ["action", "messageId", "payload"],
  properties: {
    action: { type: "string", const: "playersRemoved" },
    messageId: { type: "null" },
    payload: {
      type: "object",
      required: ["gameId", "reason", "players"],
      properties: {
        ...GameScoped,
        reason: { type: "string", enum: ["expired"] },
        players: { type: "array", items: MatchPlayerObject },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
export type PlayersRemovedMessage = FromSchema<typeof PlayersRemovedMessageSchema>;

export const KeepAliveMessageSchema = {
  $id: "KeepAliveMessage",
  type: "object",
  required: ["action", "messageId", "payload"],
  properties: {
    action: { type: "string", const: "keepAlive" },
    messageId: {
      type: "string",
      minLength: 1,
      maxLength: 256,
      description: "A new id each round, so a client can tell keepAlives apart and log which it got.",
    },
    payload: EmptyObject,
  },
  additionalProperties: false,
} as const;
export type KeepAliveMessage = FromSchema<typeof KeepAliveMessageSchema>;

export const validateClientMessage = compile<ClientMessage>(ClientMessageSchema);
export const validateServerResponse = compile<ServerResponse>(ServerResponseSchema);
export const validateServerErrorMessage = compile<ServerErrorMessage>(ServerErrorMessageSchema);
export const validateMatchSuggestionMessage = compile<MatchSuggestionMessage>(MatchSuggestionMessageSchema);
export const validateBackfillingMatchSuggestionMessage = compile<BackfillingMatchSuggestionMessage>(
  BackfillingMatchSuggestionMessageSchema,
);
export const validateGetPlayerStatsMessage = compile<GetPlayerStatsMessage>(GetPlayerStatsMessageSchema);
export const validateGetPlayerStatsResponseMessage = compile<GetPlayerStatsResponseMessage>(
  GetPlayerStatsResponseMessageSchema,
);
export const validatePlayersRemovedMessage = compile<PlayersRemovedMessage>(PlayersRemovedMessageSchema);
export const validateKeepAliveMessage = compile<KeepAliveMessage>(KeepAliveMessageSchema);

/** One validator per action's payload, e.g. `messagePayloadValidators.addPlayer(payload)`. */
export const messagePayloadValidators = Object.fromEntries(
  MESSAGE_ACTIONS.map((action) => [action, compile(MESSAGE_PAYLOAD_SCHEMAS[action])]),
) as { [A in MessageAction]: Validator<MessagePayloads[A]> };

/** One validator per action's answer payload, for tests of the gateway and of clients. */
export const messageResponsePayloadValidators = Object.fromEntries(
  MESSAGE_ACTIONS.map((action) => [action, compile(MESSAGE_RESPONSE_PAYLOAD_SCHEMAS[action])]),
) as { [A in MessageAction]: Validator<MessageResponsePayloads[A]> };
