import type { FromSchema } from "json-schema-to-ts";
import { GameIdField, MAX_SERVERS, ServerNameField } from "./fields.js";
import { DEFAULT_TARGET_WAITING_TIME, GameModeObject, MAX_MATCH_PLAYERS } from "./matchmaking.js";
import { MODE_NAME_PATTERN } from "./statistics.js";
import { compile, type MaxProduct } from "./validation.js";

/**
 * Hosted game configuration (`PUT /games/{gameId}`, `GET /games/{gameId}`, admin role).
 *
 * A game is one game mode: the matchmaker's GameMode fields (same names, same bounds, the same
 * `numTeams * numPlayersPerTeam >= 2` rule) with the match size bounded by the matchmaker's default
 * limit (`numTeams * numPlayersPerTeam <= MAX_MATCH_PLAYERS`: the mode's name, its queue and every
 * matchmaking request are sized by it), plus what the hosted queue needs on top:
 * - `servers`: the servers this game runs on. A submitted player may name a subset; a player who
 *   names none can play on all of them. Required, because a ticket without servers cannot match.
 * - `confirmationTimeout`: seconds a suggestion may wait for its confirmation before it fails and
 *   its players are requeued.
 * `maxLatency` is left out: hosted players submit server lists, not latency maps.
 *
 * The body is ours (Idem configures games in its console), so it is closed: a misspelt option is
 * a 400 instead of a silently ignored setting.
 */

/** Seconds a suggestion may stay unconfirmed, when the game config omits it. */
export const DEFAULT_CONFIRMATION_TIMEOUT = 60;
/** The longest `confirmationTimeout` and `backfillTimeout`: an hour, in seconds. */
export const MAX_GAME_TIMEOUT_SECONDS = 3600;
/** The longest `maxQueueSeconds`: a day. */
export const MAX_QUEUE_SECONDS = 86_400;
/** Seconds a backfill request may search before it times out (`timed-out`), when the config omits it. */
export const DEFAULT_BACKFILL_TIMEOUT = 60;
/** Seconds a player may wait in the queue before it is removed as `expired`, when the config omits it. */
export const DEFAULT_MAX_QUEUE_SECONDS = 600;

const {
  maxLatency: _notHosted,
  numTeams,
  numPlayersPerTeam,
  ...WaitingProperties
} = GameModeObject.properties;
const HostedGameModeProperties = {
  numTeams: { ...numTeams, maximum: MAX_MATCH_PLAYERS },
  numPlayersPerTeam: { ...numPlayersPerTeam, maximum: MAX_MATCH_PLAYERS },
  ...WaitingProperties,
} as const;
const MatchSizeRule: MaxProduct = { of: ["numTeams", "numPlayersPerTeam"], maximum: MAX_MATCH_PLAYERS };

const GameServersField = {
  type: "array",
  minItems: 1,
  maxItems: MAX_SERVERS,
  uniqueItems: true,
  items: ServerNameField,
  description: "Servers of this game; players who name none can play on all of them.",
} as const;

const ConfirmationTimeoutField = {
  type: "integer",
  minimum: 1,
  maximum: MAX_GAME_TIMEOUT_SECONDS,
  description: "Seconds a match suggestion may stay unconfirmed before it fails and requeues its players.",
} as const;

const BackfillTimeoutField = {
  type: "integer",
  minimum: 1,
  maximum: MAX_GAME_TIMEOUT_SECONDS,
  description: "Seconds a backfill request may search for a replacement before it times out.",
} as const;

const MaxQueueSecondsField = {
  type: "integer",
  minimum: 1,
  maximum: MAX_QUEUE_SECONDS,
  description: "Seconds a player may wait in the queue before it is removed with the reason `expired`.",
} as const;

export const GameConfigRequestSchema = {
  $id: "GameConfigRequest",
  type: "object",
  required: [...GameModeObject.required, "servers"],
  properties: {
    ...HostedGameModeProperties,
    servers: GameServersField,
    confirmationTimeout: { ...ConfirmationTimeoutField, default: DEFAULT_CONFIRMATION_TIMEOUT },
    maxQueueSeconds: { ...MaxQueueSecondsField, default: DEFAULT_MAX_QUEUE_SECONDS },
    backfillTimeout: { ...BackfillTimeoutField, default: DEFAULT_BACKFILL_TIMEOUT },
  },
  if: GameModeObject.if,
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; its value is no function, so never a thenable
  then: GameModeObject.then,
  "x-maxProduct": MatchSizeRule,
  additionalProperties: false,
} as const;
export type GameConfigRequest = FromSchema<
  typeof GameConfigRequestSchema,
  { keepDefaultedPropertiesOptional: true }
>;

const Timestamp = { type: "string", format: "date-time" } as const;

/** The stored config as answered: defaults filled in, plus the mode's statistics name. */
export const GameConfigSchema = {
  $id: "GameConfig",
  type: "object",
  required: [
    "gameId",
    "mode",
    "numTeams",
    "numPlayersPerTeam",
    "targetWaitingTime",
    "servers",
    "confirmationTimeout",
    "maxQueueSeconds",
    "backfillTimeout",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    gameId: GameIdField,
    mode: { type: "string", pattern: MODE_NAME_PATTERN, description: "Statistics name, e.g. 2v2." },
    ...HostedGameModeProperties,
    servers: GameServersField,
    confirmationTimeout: ConfirmationTimeoutField,
    maxQueueSeconds: MaxQueueSecondsField,
    backfillTimeout: BackfillTimeoutField,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  additionalProperties: false,
} as const;
export type GameConfig = FromSchema<typeof GameConfigSchema>;

/** The effective values of a config body: what `GameConfig` answers besides ids and times. */
export function withGameConfigDefaults(config: GameConfigRequest) {
  return {
    ...config,
    targetWaitingTime: config.targetWaitingTime ?? DEFAULT_TARGET_WAITING_TIME,
    confirmationTimeout: config.confirmationTimeout ?? DEFAULT_CONFIRMATION_TIMEOUT,
    maxQueueSeconds: config.maxQueueSeconds ?? DEFAULT_MAX_QUEUE_SECONDS,
    backfillTimeout: config.backfillTimeout ?? DEFAULT_BACKFILL_TIMEOUT,
  };
}

export const validateGameConfigRequest = compile<GameConfigRequest>(GameConfigRequestSchema);
export const validateGameConfig = compile<GameConfig>(GameConfigSchema);
