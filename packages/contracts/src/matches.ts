import type { FromSchema } from "json-schema-to-ts";
import { GameIdField, INT32_MAX, SeasonNameField, ServerNameField } from "./fields.js";
import { MAX_MATCH_PLAYERS } from "./matchmaking.js";
import { PlayerIdField, PlayerReferenceField } from "./players.js";
import { compile } from "./validation.js";

/**
 * Matches of the hosted queue (`/games/{gameId}/matches...`): delivery, status updates, results.
 *
 * Bodies clients send follow Idem's REST API and are open (unknown fields ignored); answers are
 * ours and closed.
 */

/** `suggested → delivered → confirmed → completed`, and `suggested|delivered|confirmed → failed`. */
export const MATCH_STATUSES = ["suggested", "delivered", "confirmed", "completed", "failed"] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/** Match ids are the matchmaker's suggestion ids. */
export const MatchIdField = { type: "string", format: "uuid" } as const;

export const MatchPlayerObject = {
  type: "object",
  required: ["playerId", "reference"],
  properties: { playerId: PlayerIdField, reference: PlayerReferenceField },
  additionalProperties: false,
} as const;
export type MatchPlayer = FromSchema<typeof MatchPlayerObject>;

const DeliveredMatchProperties = {
  id: MatchIdField,
  uuid: { ...MatchIdField, description: "Equal to id; kept for existing Idem clients." },
  server: { type: "string", minLength: 1 },
  matchScore: { type: "number", minimum: 0, maximum: 1 },
  teams: {
    type: "array",
    minItems: 1,
    items: {
      type: "object",
      required: ["players"],
      properties: { players: { type: "array", minItems: 1, items: MatchPlayerObject } },
      additionalProperties: false,
    },
  },
} as const;
const DeliveredMatchRequired = ["id", "uuid", "server", "matchScore", "teams"] as const;

/** A match suggestion as delivered to the game (`POST .../matches`, the `matchSuggestion` push). */
export const DeliveredMatchObject = {
  type: "object",
  required: DeliveredMatchRequired,
  properties: DeliveredMatchProperties,
  additionalProperties: false,
} as const;
export type DeliveredMatch = FromSchema<typeof DeliveredMatchObject>;

/** `POST /games/{gameId}/matches`: the suggestions not delivered before, now marked delivered. */
export const DeliveredMatchListSchema = {
  $id: "DeliveredMatchList",
  type: "array",
  items: DeliveredMatchObject,
} as const;
export type DeliveredMatchList = FromSchema<typeof DeliveredMatchListSchema>;

const Timestamp = { type: "string", format: "date-time" } as const;

/** `GET /games/{gameId}/matches/{matchId}`: the delivered shape plus its game, status and times. */
export const MatchSchema = {
  $id: "Match",
  type: "object",
  required: [...DeliveredMatchRequired, "gameId", "status", "createdAt", "updatedAt"],
  properties: {
    ...DeliveredMatchProperties,
    gameId: GameIdField,
    status: { type: "string", enum: MATCH_STATUSES },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  additionalProperties: false,
} as const;
export type Match = FromSchema<typeof MatchSchema>;

/** A list of a match's players: a match holds at most MAX_MATCH_PLAYERS. */
const PlayerIdList = {
  type: "array",
  maxItems: MAX_MATCH_PLAYERS,
  uniqueItems: true,
  items: PlayerIdField,
} as const;

/** Players to take out of the queue (`remove`) or put back in it (`requeue`). */
const MatchPlayersUpdateObject = {
  type: "object",
  properties: { remove: PlayerIdList, requeue: PlayerIdList },
} as const;

/** `.../statuses/confirmed`: an empty body confirms; players in `remove`/`requeue` fail the match. */
export const ConfirmMatchRequestSchema = { $id: "ConfirmMatchRequest", ...MatchPlayersUpdateObject } as const;
export type ConfirmMatchRequest = FromSchema<typeof ConfirmMatchRequestSchema>;

/** `.../statuses/failed`: players in neither list are requeued. */
export const FailMatchRequestSchema = { $id: "FailMatchRequest", ...MatchPlayersUpdateObject } as const;
export type FailMatchRequest = FromSchema<typeof FailMatchRequestSchema>;

/** `{removed: [Player], requeued: [Player]}`, Player = `{playerId, reference}`, as Idem's clients read it. */
export const FailMatchResponseSchema = {
  $id: "FailMatchResponse",
  type: "object",
  required: ["removed", "requeued"],
  properties: {
    removed: { type: "array", items: MatchPlayerObject },
    requeued: { type: "array", items: MatchPlayerObject },
  },
  additionalProperties: false,
} as const;
export type FailMatchResponse = FromSchema<typeof FailMatchResponseSchema>;

const ScoredPlayerObject = {
  type: "object",
  required: ["playerId", "score"],
  properties: { playerId: PlayerIdField, score: { type: "number" } },
} as const;

/**
 * `.../statuses/completed`. `rank` 0 is the winning team; equal ranks are a tie. Idem's API gives
 * `rank` as a number; ranks are whole places, so the schema asks for a non-negative integer (JSON
 * `1.0` is still accepted: it parses to 1) that PostgreSQL's integer holds. A match has at most
 * MAX_MATCH_PLAYERS players, so no list of a result is longer.
 */
export const CompleteMatchRequestSchema = {
  $id: "CompleteMatchRequest",
  type: "object",
  required: ["teams"],
  properties: {
    server: { ...ServerNameField, description: "The server the match was played on." },
    gameLength: { type: "number", minimum: 0, description: "Seconds." },
    teams: {
      type: "array",
      minItems: 1,
      maxItems: MAX_MATCH_PLAYERS,
      items: {
        type: "object",
        required: ["rank", "players"],
        properties: {
          rank: { type: "integer", minimum: 0, maximum: INT32_MAX },
          players: { type: "array", minItems: 1, maxItems: MAX_MATCH_PLAYERS, items: ScoredPlayerObject },
        },
      },
    },
  },
} as const;
export type CompleteMatchRequest = FromSchema<typeof CompleteMatchRequestSchema>;

const CountField = { type: "integer", minimum: 0 } as const;

/**
 * A player's statistics after a completed match: the fields of Idem's PlayerResult,
 * for the match's mode and the current season. Idem types the counts as `number`; they are
 * whole counts, so the schema says integer (every integer is a JSON number to a client).
 */
const PlayerResultObject = {
  type: "object",
  required: [
    "playerId",
    "rating",
    "ratingUncertainty",
    "rankingPoints",
    "ratingDeltaLastGame",
    "rankingDeltaLastGame",
    "wins",
    "losses",
    "matchesPlayed",
    "winRatio",
    "seasonWins",
    "seasonLosses",
    "seasonMatchesPlayed",
    "totalWins",
    "totalLosses",
    "totalMatchesPlayed",
    "season",
  ],
  properties: {
    playerId: PlayerIdField,
    rating: { type: "number" },
    ratingUncertainty: { type: "number", minimum: 0 },
    rankingPoints: { type: "number", minimum: 0 },
    ratingDeltaLastGame: { type: "number" },
    rankingDeltaLastGame: { type: "number" },
    wins: CountField,
    losses: CountField,
    matchesPlayed: CountField,
    winRatio: { type: "number", minimum: 0, maximum: 1 },
    seasonWins: CountField,
    seasonLosses: CountField,
    seasonMatchesPlayed: CountField,
    totalWins: CountField,
    totalLosses: CountField,
    totalMatchesPlayed: CountField,
    season: SeasonNameField,
  },
  additionalProperties: false,
} as const;
export type PlayerResult = FromSchema<typeof PlayerResultObject>;

export const CompleteMatchResponseSchema = {
  $id: "CompleteMatchResponse",
  type: "object",
  required: ["players"],
  properties: { players: { type: "array", items: PlayerResultObject } },
  additionalProperties: false,
} as const;
export type CompleteMatchResponse = FromSchema<typeof CompleteMatchResponseSchema>;

/** `DELETE /games/{gameId}/queue`: every waiting player removed, every open match failed. */
export const QueueClearedSchema = {
  $id: "QueueCleared",
  type: "object",
  required: ["removed", "failedMatches"],
  properties: {
    removed: { type: "integer", minimum: 0, description: "Waiting players removed." },
    failedMatches: { type: "integer", minimum: 0, description: "Suggested or delivered matches failed." },
  },
  additionalProperties: false,
} as const;
export type QueueCleared = FromSchema<typeof QueueClearedSchema>;

export const validateQueueCleared = compile<QueueCleared>(QueueClearedSchema);
export const validateDeliveredMatchList = compile<DeliveredMatchList>(DeliveredMatchListSchema);
export const validateMatch = compile<Match>(MatchSchema);
export const validateConfirmMatchRequest = compile<ConfirmMatchRequest>(ConfirmMatchRequestSchema);
export const validateFailMatchRequest = compile<FailMatchRequest>(FailMatchRequestSchema);
export const validateFailMatchResponse = compile<FailMatchResponse>(FailMatchResponseSchema);
export const validateCompleteMatchRequest = compile<CompleteMatchRequest>(CompleteMatchRequestSchema);
export const validateCompleteMatchResponse = compile<CompleteMatchResponse>(CompleteMatchResponseSchema);
