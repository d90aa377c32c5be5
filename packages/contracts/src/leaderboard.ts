import type { FromSchema } from "json-schema-to-ts";
import { INT32_MAX, SeasonNameField } from "./fields.js";
import { PlayerIdField } from "./players.js";
import { compile } from "./validation.js";

/**
 * The leaderboard (`POST /games/{gameId}/leaderboard`): one body, three variants told apart by
 * which optional field is present.
 * - from-top: `{count}` — the first `count` entries, `count` ≤ 500;
 * - from-rank: `{count, fromRank}` — `count` entries from the 1-based rank, `count` ≤ 100;
 * - around-player: `{count, playerId}` — `count` players before and `count` after the player, the
 *   player included, `count` ≤ 50.
 * `fromRank` together with `playerId` is invalid.
 *
 * The variants are `dependentSchemas` rather than `oneOf`: a bad body then gets exactly the error
 * of the rule it broke, at the field's pointer, and `toFieldErrors` names the field that switched
 * the rule on, e.g. `/count` "must be <= 100 when fromRank is given", `/fromRank` "is not allowed
 * when playerId is given". (`oneOf` would report every branch's failures plus "must match exactly
 * one schema".)
 *
 * The body is Idem's and stays open: Idem's API does not show how the game mode is chosen, so an
 * Idem client may send fields we do not use; they are ignored.
 */

export const LEADERBOARD_LIMITS = { fromTop: 500, fromRank: 100, aroundPlayer: 50 } as const;
export const LEADERBOARD_FROM_TOP_MAX_COUNT = LEADERBOARD_LIMITS.fromTop;
export const LEADERBOARD_FROM_RANK_MAX_COUNT = LEADERBOARD_LIMITS.fromRank;
export const LEADERBOARD_AROUND_PLAYER_MAX_COUNT = LEADERBOARD_LIMITS.aroundPlayer;

export type LeaderboardVariant = keyof typeof LEADERBOARD_LIMITS;

export const LeaderboardRequestSchema = {
  $id: "LeaderboardRequest",
  type: "object",
  required: ["count"],
  properties: {
    count: { type: "integer", minimum: 1, maximum: LEADERBOARD_FROM_TOP_MAX_COUNT },
    fromRank: {
      type: "integer",
      minimum: 1,
      maximum: INT32_MAX,
      description: "1-based rank of the first entry.",
    },
    playerId: { ...PlayerIdField, description: "Answer the entries around this player." },
    season: { ...SeasonNameField, description: "The current season when omitted." },
  },
  dependentSchemas: {
    // Only the tighter maximum: the base schema already reports a count below 1.
    fromRank: { properties: { count: { type: "integer", maximum: LEADERBOARD_FROM_RANK_MAX_COUNT } } },
    playerId: {
      properties: {
        count: { type: "integer", maximum: LEADERBOARD_AROUND_PLAYER_MAX_COUNT },
        fromRank: false,
      },
    },
  },
} as const;
export type LeaderboardRequest = FromSchema<typeof LeaderboardRequestSchema>;

/** Which of the three variants a (valid) request asks for. */
export function leaderboardVariant(request: LeaderboardRequest): LeaderboardVariant {
  if (request.playerId !== undefined) return "aroundPlayer";
  if (request.fromRank !== undefined) return "fromRank";
  return "fromTop";
}

export const LeaderboardResponseSchema = {
  $id: "LeaderboardResponse",
  type: "object",
  required: ["leaderboard", "season"],
  properties: {
    leaderboard: {
      type: "array",
      maxItems: LEADERBOARD_FROM_TOP_MAX_COUNT,
      description: "Entries in rank order; ties broken by who reached the points first.",
      items: {
        type: "object",
        required: ["playerId", "rank", "ranking_points"],
        properties: {
          playerId: PlayerIdField,
          rank: { type: "integer", minimum: 1 },
          ranking_points: { type: "number", minimum: 0 },
        },
        additionalProperties: false,
      },
    },
    season: SeasonNameField,
  },
  additionalProperties: false,
} as const;
export type LeaderboardResponse = FromSchema<typeof LeaderboardResponseSchema>;
export type LeaderboardEntry = LeaderboardResponse["leaderboard"][number];

export const validateLeaderboardRequest = compile<LeaderboardRequest>(LeaderboardRequestSchema);
export const validateLeaderboardResponse = compile<LeaderboardResponse>(LeaderboardResponseSchema);

/**
 * Most reads of one board in one internal batch (`getLeaderboardBatch`): under load, the gateway
 * sends the reads of a board that arrive while its calls for that board are in flight to stats
 * together, which then costs stats one request instead of one each.
 */
export const LEADERBOARD_READ_BATCH_MAX = 64;

/**
 * An internal batch of leaderboard reads of one board: each item is a `LeaderboardRequest` body as
 * its client sent it, unchecked here: stats checks each alone, as the operation does, so a bad one
 * fails by itself.
 */
export const LeaderboardReadBatchSchema = {
  $id: "LeaderboardReadBatch",
  type: "object",
  required: ["reads"],
  properties: {
    reads: {
      type: "array",
      minItems: 1,
      maxItems: LEADERBOARD_READ_BATCH_MAX,
      items: { description: "A LeaderboardRequest body, checked by itself" },
    },
  },
  additionalProperties: false,
} as const;
export type LeaderboardReadBatch = { reads: unknown[] };

const { $id: _leaderboardResponse, ...LeaderboardResponseObject } = LeaderboardResponseSchema;

/**
 * The batch's answers, in the order of its reads: the leaderboard of a read that succeeded, the
 * status alone of one that did not (the gateway then sends that read by itself, so its client gets
 * the operation's whole answer: problem, headers and all).
 */
export const LeaderboardReadBatchAnswerSchema = {
  $id: "LeaderboardReadBatchAnswer",
  type: "object",
  required: ["answers"],
  properties: {
    answers: {
      type: "array",
      maxItems: LEADERBOARD_READ_BATCH_MAX,
      items: {
        type: "object",
        required: ["status"],
        properties: {
          status: { type: "integer", minimum: 100, maximum: 599 },
          body: LeaderboardResponseObject,
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;
export type LeaderboardReadBatchAnswer = {
  answers: Array<{ status: number; body?: LeaderboardResponse }>;
};

/*
 * The batch answer's layout: JSON of LeaderboardReadBatchAnswer laid out one answer to a line:
 * `{"answers":[` on the first line, each answer on a line of its own (after the first, starting
 * with its comma), `]}` on the last. A success's line is `{"status":200,"body":<the leaderboard>}`,
 * so a reader takes each leaderboard's bytes from its line without parsing the batch; JSON.stringify
 * never writes a raw line break, so no line can hold another's.
 */
const BATCH_OPEN = '{"answers":[';
const BATCH_CLOSE = "]}";
const BATCH_SUCCESS = '{"status":200,"body":';

/** One answer's line of a batch answer. */
export function leaderboardBatchLine(answer: { status: number; body?: LeaderboardResponse }): string {
  return answer.body === undefined
    ? JSON.stringify({ status: answer.status })
    : `${BATCH_SUCCESS}${JSON.stringify(answer.body)}}`;
}

/** The batch answer of these lines (`leaderboardBatchLine`), in the layout above. */
export function leaderboardBatchText(lines: readonly string[]): string {
  return `${BATCH_OPEN}\n${lines.join("\n,")}\n${BATCH_CLOSE}`;
}

const OPEN_BYTES = Buffer.from(BATCH_OPEN);
const CLOSE_BYTES = Buffer.from(BATCH_CLOSE);
const SUCCESS_BYTES = Buffer.from(BATCH_SUCCESS);
const NEWLINE = 0x0a;
const COMMA = 0x2c;
const CLOSING_BRACE = 0x7d;

/**
 * Each read's leaderboard bytes from a batch answer of `reads` answers in the layout above (a
 * read that did not succeed: undefined); undefined when the answer is not laid out so.
 */
export function leaderboardBatchBodies(answer: Buffer, reads: number): Array<Buffer | undefined> | undefined {
  let newline = answer.indexOf(NEWLINE);
  if (newline === -1 || !answer.subarray(0, newline).equals(OPEN_BYTES)) return undefined;
  const bodies: Array<Buffer | undefined> = [];
  for (let i = 0; i < reads; i++) {
    let from = newline + 1;
    newline = answer.indexOf(NEWLINE, from);
    if (newline === -1) return undefined;
    if (i > 0) {
      if (answer[from] !== COMMA) return undefined;
      from++;
    }
    const line = answer.subarray(from, newline);
    const success =
      line.length > SUCCESS_BYTES.length + 1 &&
      line.subarray(0, SUCCESS_BYTES.length).equals(SUCCESS_BYTES) &&
      line[line.length - 1] === CLOSING_BRACE;
    bodies.push(success ? line.subarray(SUCCESS_BYTES.length, line.length - 1) : undefined);
  }
  return answer.subarray(newline + 1).equals(CLOSE_BYTES) ? bodies : undefined;
}
