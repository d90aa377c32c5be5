import type { FromSchema } from "json-schema-to-ts";
import { idField, MAX_SERVERS, ServerNameField, textField } from "./fields.js";
import { MAX_MATCH_PLAYERS } from "./matchmaking.js";
import { compile } from "./validation.js";

/**
 * Players of the hosted queue (`/games/{gameId}/players`).
 *
 * The submission body follows Idem's REST API, so it is open: fields an Idem client sends that we
 * do not know are ignored. Answers are ours and closed.
 */

/** Player ids are the game's own (Steam, Epic, Firebase, ... ids), so only bounded, not shaped. */
export const PlayerIdField = idField(256);
/** Free text a game attaches to a player and gets back with its matches; `null` when none was given. */
export const PlayerReferenceField = { ...textField(1024), type: ["string", "null"] } as const;

/** `waiting`: in the queue. `matched`: in a suggested, delivered or confirmed match. */
export const PLAYER_STATES = ["waiting", "matched"] as const;
export type PlayerState = (typeof PLAYER_STATES)[number];

export const SubmitPlayersRequestSchema = {
  $id: "SubmitPlayersRequest",
  type: "object",
  required: ["players"],
  properties: {
    partyName: {
      ...idField(256),
      description: "Players submitted together as a party go into the same team of the same match.",
    },
    players: {
      type: "array",
      minItems: 1,
      maxItems: MAX_MATCH_PLAYERS,
      items: {
        type: "object",
        properties: {
          playerId: { ...PlayerIdField, description: "Generated when omitted." },
          servers: {
            type: "array",
            minItems: 1,
            maxItems: MAX_SERVERS,
            uniqueItems: true,
            items: ServerNameField,
            description:
              "Servers the player can play on, best first; all of the game's servers when omitted.",
          },
          reference: PlayerReferenceField,
        },
      },
    },
  },
} as const;
export type SubmitPlayersRequest = FromSchema<typeof SubmitPlayersRequestSchema>;
export type PlayerSubmission = SubmitPlayersRequest["players"][number];

const QueuedPlayerObject = {
  type: "object",
  required: ["playerId", "state", "reference"],
  properties: {
    playerId: PlayerIdField,
    state: { type: "string", enum: PLAYER_STATES },
    reference: PlayerReferenceField,
  },
  additionalProperties: false,
} as const;
export type QueuedPlayer = FromSchema<typeof QueuedPlayerObject>;

/** 201 answer of a submission: every player with its (possibly generated) id, in body order. */
export const SubmitPlayersResponseSchema = {
  $id: "SubmitPlayersResponse",
  type: "object",
  required: ["players"],
  properties: { players: { type: "array", items: QueuedPlayerObject } },
  additionalProperties: false,
} as const;
export type SubmitPlayersResponse = FromSchema<typeof SubmitPlayersResponseSchema>;

/** `GET /games/{gameId}/players`: the game's waiting and matched players. */
export const PlayerListSchema = {
  $id: "PlayerList",
  type: "array",
  items: QueuedPlayerObject,
} as const;
export type PlayerList = FromSchema<typeof PlayerListSchema>;

export const validateSubmitPlayersRequest = compile<SubmitPlayersRequest>(SubmitPlayersRequestSchema);
export const validateSubmitPlayersResponse = compile<SubmitPlayersResponse>(SubmitPlayersResponseSchema);
export const validatePlayerList = compile<PlayerList>(PlayerListSchema);
