import type { FromSchema } from "json-schema-to-ts";
import { compile, compileFirstError } from "./validation.js";

/**
 * The stateless matchmaker's wire shapes (`POST /matchmaking/basic` and `/matchmaking/advanced`),
 * wire-compatible with the public Idem matchmaking API.
 *
 * Leniency: every request shape here is open (no `additionalProperties: false`). Clients already
 * integrated with Idem may send fields we do not know (Idem documents more game mode options than
 * it shows, and client SDKs add their own ticket fields); rejecting those would break a working
 * integration for no gain, so unknown fields are accepted and ignored. Responses are closed except
 * the tickets they echo, because we produce them and a contract test should catch a leaked field.
 *
 * Cost: a request may hold 100k tickets, so the Ticket schema uses only cheap keywords (types,
 * bounds, `minLength`): no `format`, no `pattern`, and no `uniqueItems`. ajv checks `uniqueItems`
 * with a fresh hash per array, which cost 150 ms of the 176 ms it took to validate 100k tickets, so
 * distinct server names are checked by the matchmaker in the same pass as its other semantic rules
 * (unique ticketIds, timestamps not in the future, parties that fit a team). Ratings
 * and latencies are always finite here: JSON has no NaN or Infinity.
 */

/** The wait (seconds) over which the required match quality relaxes, when the game mode omits it. */
export const DEFAULT_TARGET_WAITING_TIME = 20;

/**
 * The largest match (numTeams × numPlayersPerTeam): the matchmaker's `MAX_MATCH_PLAYERS` default,
 * and the bound of every hosted game. A match's cost grows with its size; 1000 covers 100-player
 * battle royales with room to spare.
 */
export const MAX_MATCH_PLAYERS = 1000;
/** The longest wait a game mode may name (`targetWaitingTime`, `maxWaitingTime`): one day, in seconds. */
export const MAX_WAITING_SECONDS = 86_400;
/** The largest `maxLatency`, in milliseconds: a minute, far above any playable latency. */
export const MAX_LATENCY_MS = 60_000;
/** The largest `ratingTolerance`: far beyond the spread of any rating scale. */
export const MAX_RATING_TOLERANCE = 1_000_000;

const NonNegativeNumber = { type: "number", minimum: 0 } as const;
const WaitingSeconds = { ...NonNegativeNumber, maximum: MAX_WAITING_SECONDS } as const;

/** GameMode without `$id`, for embedding (the hosted game config extends it). */
export const GameModeObject = {
  type: "object",
  required: ["numTeams", "numPlayersPerTeam"],
  properties: {
    numTeams: { type: "integer", minimum: 1, description: "Number of teams per match." },
    numPlayersPerTeam: { type: "integer", minimum: 1, description: "Number of players per team." },
    targetWaitingTime: {
      ...WaitingSeconds,
      default: DEFAULT_TARGET_WAITING_TIME,
      description:
        "Seconds over which the required match quality relaxes from strict to anything compatible.",
    },
    maxWaitingTime: {
      ...WaitingSeconds,
      description:
        "Seconds after which a ticket is placed in the best match still available to it, whatever its quality. No limit when omitted.",
    },
    maxLatency: {
      ...NonNegativeNumber,
      maximum: MAX_LATENCY_MS,
      description:
        "Milliseconds; servers above it are not candidates for a ticket. Advanced edition (latency maps) only; ignored for server lists.",
    },
    ratingTolerance: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: MAX_RATING_TOLERANCE,
      description:
        "Rating difference inside a match that counts as clearly unequal. Derived from the spread of the request's ratings when omitted.",
    },
  },
  // numTeams * numPlayersPerTeam >= 2: with integers >= 1 only 1 x 1 is too small. `required` in
  // the `if` keeps it from matching vacuously when numTeams is missing.
  if: { required: ["numTeams"], properties: { numTeams: { type: "integer", const: 1 } } },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; its value is no function, so never a thenable
  then: { properties: { numPlayersPerTeam: { type: "integer", minimum: 2 } } },
} as const;

export const GameModeSchema = { $id: "GameMode", ...GameModeObject } as const;
/** Defaulted fields stay optional: validation does not fill defaults in, the matchmaker applies them. */
export type GameMode = FromSchema<typeof GameModeSchema, { keepDefaultedPropertiesOptional: true }>;

/** Basic edition: server names, best first. */
const ServerListObject = {
  type: "array",
  minItems: 1,
  items: { type: "string", minLength: 1 },
} as const;

/**
 * `servers` is a non-empty list of distinct server names, or (advanced edition) a latency map
 * `{server: latencyMs}` with at least one entry. One union type instead of `oneOf`: ajv checks
 * only the keywords of the type it finds, and a bad value gets one error, not one per branch.
 */
const ServersObject = {
  type: ["array", "object"],
  minItems: 1,
  items: ServerListObject.items,
  minProperties: 1,
  propertyNames: { type: "string", minLength: 1 },
  additionalProperties: NonNegativeNumber,
  description:
    "Servers the player can play on: a list of distinct names, best first (the matchmaker refuses duplicates), or on the advanced edition a latency map {server: latencyMs}.",
} as const;

/** Tickets are matched only with tickets whose object is exactly equal; missing or null means `{}`. */
const ExactEqualityConstraintsObject = {
  type: "object",
  additionalProperties: { type: ["string", "number", "boolean"] },
} as const;

const TicketObject = {
  type: "object",
  required: ["ticketId", "joinTimestamp", "rating", "servers"],
  properties: {
    ticketId: { type: "string", minLength: 1, description: "Unique within the request." },
    joinTimestamp: {
      type: "integer",
      minimum: 0,
      description: "When the player started searching, Unix time in seconds.",
    },
    rating: { type: "number", description: "Any numeric measure of soft compatibility." },
    servers: ServersObject,
    partyId: {
      type: "string",
      minLength: 1,
      description: "Tickets sharing it go into the same team of the same match, or all stay unmatched.",
    },
    exactEqualityConstraints: {
      ...ExactEqualityConstraintsObject,
      type: ["object", "null"],
      description: "Null is accepted (Idem responses show it) and means {}.",
    },
  },
  // Deliberately open: unknown ticket fields are accepted and ignored (see the file comment).
} as const;

export const TicketSchema = { $id: "Ticket", ...TicketObject } as const;
export type Ticket = FromSchema<typeof TicketSchema>;
export type Servers = Ticket["servers"];
export type LatencyMap = Exclude<Servers, readonly string[]>;

/** A ticket as the matchmaker returns it: `exactEqualityConstraints` always present, `{}` if none. */
const ReturnedTicketObject = {
  ...TicketObject,
  required: [...TicketObject.required, "exactEqualityConstraints"],
  properties: { ...TicketObject.properties, exactEqualityConstraints: ExactEqualityConstraintsObject },
} as const;
export type ReturnedTicket = FromSchema<typeof ReturnedTicketObject>;

export const MatchmakingRequestSchema = {
  $id: "MatchmakingRequest",
  type: "object",
  required: ["game_mode", "tickets"],
  properties: {
    game_mode: GameModeObject,
    tickets: { type: "array", items: TicketObject, description: "The whole queue, in any order." },
    now: {
      ...NonNegativeNumber,
      description:
        "Unix seconds used as the current time; defaults to the server clock. Makes a queue replayable.",
    },
    explain: {
      type: "boolean",
      description:
        "Adds `unmatchedReasons` to the answer: why each unmatched ticket is still waiting. Same as `?explain=true`.",
    },
  },
} as const;
export type MatchmakingRequest = FromSchema<
  typeof MatchmakingRequestSchema,
  { keepDefaultedPropertiesOptional: true }
>;

const UuidString = { type: "string", format: "uuid" } as const;

/**
 * Why a ticket came back unmatched (`?explain=true`). Stable codes; ALGORITHM.md explains each.
 * - party-too-large: its party has more tickets than a team holds.
 * - party-constraints-differ: its party's members have different exactEqualityConstraints.
 * - no-shared-server: its party's members have no server in common.
 * - no-server-within-max-latency: every server it (or its whole party) could share is above maxLatency.
 * - no-compatible-tickets: no other ticket in the request has the same constraints and a shared server.
 * - not-enough-compatible-tickets: too few compatible players are left to fill a match.
 * - waiting-for-better-match: a match is possible but its score is below what this wait requires.
 */
export const UNMATCHED_REASON_CODES = [
  "party-too-large",
  "party-constraints-differ",
  "no-shared-server",
  "no-server-within-max-latency",
  "no-compatible-tickets",
  "not-enough-compatible-tickets",
  "waiting-for-better-match",
] as const;
export type UnmatchedReasonCode = (typeof UNMATCHED_REASON_CODES)[number];

const UnmatchedReasonObject = {
  type: "object",
  required: ["code"],
  properties: {
    code: { type: "string", enum: UNMATCHED_REASON_CODES },
    detail: { type: "string", description: "A sentence for people; its wording may change." },
    requiredScore: {
      type: "number",
      minimum: 0,
      maximum: 1,
      description: "waiting-for-better-match: the score this ticket's match needs at its current wait.",
    },
    bestScore: {
      type: "number",
      minimum: 0,
      maximum: 1,
      description: "waiting-for-better-match: the score of the best match available to it now.",
    },
  },
  additionalProperties: false,
} as const;
export type UnmatchedReason = FromSchema<typeof UnmatchedReasonObject>;

export const MatchmakingResponseSchema = {
  $id: "MatchmakingResponse",
  type: "object",
  required: ["matchSuggestions", "unmatchedTickets"],
  properties: {
    matchSuggestions: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "server", "matchScore", "teams"],
        properties: {
          id: UuidString,
          server: { type: "string", minLength: 1, description: "Shared by every ticket of the match." },
          matchScore: { type: "number", minimum: 0, maximum: 1, description: "1 for identical ratings." },
          teams: {
            type: "array",
            minItems: 1,
            items: {
              type: "object",
              required: ["id", "tickets"],
              properties: {
                id: UuidString,
                tickets: { type: "array", minItems: 1, items: ReturnedTicketObject },
              },
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    },
    unmatchedTickets: { type: "array", items: ReturnedTicketObject },
    unmatchedReasons: {
      type: "object",
      additionalProperties: UnmatchedReasonObject,
      description: "Only with `explain`: for every unmatched ticket, keyed by ticketId, why it is waiting.",
    },
  },
  additionalProperties: false,
} as const;
export type MatchmakingResponse = FromSchema<typeof MatchmakingResponseSchema>;
export type MatchSuggestion = MatchmakingResponse["matchSuggestions"][number];
export type MatchTeam = MatchSuggestion["teams"][number];

/** True when `servers` is an advanced-edition latency map rather than a list of names. */
export function isLatencyMap(servers: Servers): servers is LatencyMap {
  return !Array.isArray(servers);
}

export const validateGameMode = compile<GameMode>(GameModeSchema);
export const validateTicket = compile<Ticket>(TicketSchema);
export const validateMatchmakingRequest = compile<MatchmakingRequest>(MatchmakingRequestSchema);
/** Stop at the first error: the matchmaker's cheap check before it lists a bounded set of errors. */
export const validateMatchmakingRequestFirstError =
  compileFirstError<MatchmakingRequest>(MatchmakingRequestSchema);
export const validateTicketFirstError = compileFirstError<Ticket>(TicketSchema);
export const validateMatchmakingResponse = compile<MatchmakingResponse>(MatchmakingResponseSchema);
