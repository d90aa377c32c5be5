import type { FromSchema } from "json-schema-to-ts";
import { GameIdField, idField } from "./fields.js";
import { MatchIdField, MatchPlayerObject } from "./matches.js";
import { MAX_MATCH_PLAYERS } from "./matchmaking.js";
import { PlayerIdField } from "./players.js";
import { compile } from "./validation.js";

/**
 * Backfilling a seat a player dropped (`/games/{gameId}/matches/{matchId}/backfill`).
 *
 * The body follows Idem's REST API and is open; answers are ours and closed.
 */

/**
 * `searching`: looking for a waiting player. `delivered`: a replacement was found and
 * delivered. `cancelled`: cancelled by the game, or the match ended first. `timed-out`: nobody was
 * found within the configured limit.
 */
export const BACKFILL_STATES = ["searching", "delivered", "cancelled", "timed-out"] as const;
export type BackfillState = (typeof BACKFILL_STATES)[number];

/** Caller-chosen ids make a retried request idempotent; generated when omitted. */
export const BackfillRequestIdField = idField(256);

export const BackfillRequestSchema = {
  $id: "BackfillRequest",
  type: "object",
  required: ["droppedPlayerId"],
  properties: {
    backfillingRequestId: BackfillRequestIdField,
    droppedPlayerId: PlayerIdField,
    matchScores: {
      type: "array",
      maxItems: MAX_MATCH_PLAYERS,
      description: "Scores so far, per team, so the replacement can be rated fairly.",
      items: {
        type: "object",
        required: ["score", "players"],
        properties: {
          score: { type: "number" },
          players: {
            type: "array",
            maxItems: MAX_MATCH_PLAYERS,
            items: {
              type: "object",
              required: ["playerId", "score"],
              properties: { playerId: PlayerIdField, score: { type: "number" } },
            },
          },
        },
      },
    },
  },
} as const;
export type BackfillRequest = FromSchema<typeof BackfillRequestSchema>;

/** 201 answer of a backfill request. */
export const BackfillCreatedSchema = {
  $id: "BackfillCreated",
  type: "object",
  required: ["backfillingRequestId"],
  properties: { backfillingRequestId: BackfillRequestIdField },
  additionalProperties: false,
} as const;
export type BackfillCreated = FromSchema<typeof BackfillCreatedSchema>;

const Timestamp = { type: "string", format: "date-time" } as const;

/** `GET .../backfill/{backfillingRequestId}`: the request's state and its replacement, once found. */
export const BackfillStatusSchema = {
  $id: "BackfillStatus",
  type: "object",
  required: [
    "backfillingRequestId",
    "gameId",
    "matchId",
    "droppedPlayerId",
    "state",
    "replacement",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    backfillingRequestId: BackfillRequestIdField,
    gameId: GameIdField,
    matchId: MatchIdField,
    droppedPlayerId: PlayerIdField,
    state: { type: "string", enum: BACKFILL_STATES },
    replacement: { anyOf: [MatchPlayerObject, { type: "null" }] },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  additionalProperties: false,
} as const;
export type BackfillStatus = FromSchema<typeof BackfillStatusSchema>;

/** The `backfillingMatchSuggestion` push: a replacement for a dropped seat of a running match. */
export const BackfillSuggestionSchema = {
  $id: "BackfillSuggestion",
  type: "object",
  required: ["backfillingRequestId", "gameId", "matchId", "droppedPlayerId", "server", "replacement"],
  properties: {
    backfillingRequestId: BackfillRequestIdField,
    gameId: GameIdField,
    matchId: MatchIdField,
    droppedPlayerId: PlayerIdField,
    server: { type: "string", minLength: 1 },
    replacement: MatchPlayerObject,
  },
  additionalProperties: false,
} as const;
export type BackfillSuggestion = FromSchema<typeof BackfillSuggestionSchema>;

export const validateBackfillRequest = compile<BackfillRequest>(BackfillRequestSchema);
export const validateBackfillCreated = compile<BackfillCreated>(BackfillCreatedSchema);
export const validateBackfillStatus = compile<BackfillStatus>(BackfillStatusSchema);
export const validateBackfillSuggestion = compile<BackfillSuggestion>(BackfillSuggestionSchema);
