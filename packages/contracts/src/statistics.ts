import type { FromSchema } from "json-schema-to-ts";
import { GameIdField, idField, MAX_SEASON_NAME_LENGTH, SeasonNameField } from "./fields.js";
import { compile } from "./validation.js";

/**
 * Player statistics and seasons.
 *
 * PlayerStats has two shapes that must never drift apart: the message one (`getPlayerStats`) with
 * `rank` in ModeStats and `isCurrentSeason` in SeasonStats, and the REST one (`GET
 * /players/{playerId}`) without them. Both are built here from one set of property definitions;
 * the message shape only adds its two fields. All of them are answers we produce, so they are closed.
 */

/** The season every tenant starts in, and the only one of a tenant that never starts another. */
export const FIRST_SEASON = "S1";
/** At most this many seasons in one getPlayerStats request (more is a 400). */
export const MAX_STATS_SEASONS = 5;
/**
 * How far ahead a season may be scheduled: a start later than this many days after now is a 400
 * (a season scheduled far ahead blocks every other start until it begins or is cancelled).
 */
export const MAX_SEASON_LEAD_DAYS = 365;
/** The description of a season's start in a request. */
const SEASON_START = `When the new season starts: now when omitted, at most ${MAX_SEASON_LEAD_DAYS} days after now.`;
/** How far ratings keep their distance from the default at a season start, when not given. */
export const DEFAULT_RATING_CARRY_OVER = 0.5;

/**
 * `?seasons=S1,S2` of `GET /players/{playerId}`: read by stats (names, count), bounded here to
 * MAX_STATS_SEASONS names with a separator and a space each.
 */
export const StatsSeasonsQueryField = {
  type: "string",
  maxLength: MAX_STATS_SEASONS * (MAX_SEASON_NAME_LENGTH + 2),
  description: `Comma-separated season names (at most ${MAX_STATS_SEASONS}); the current and previous season when omitted`,
} as const;

/** Mode names are the team sizes joined by `v`: `1v1`, `2v2`, `1v1v1v1`; one team of 4 is `4`. */
export const MODE_NAME_PATTERN = "^[1-9][0-9]*(?:v[1-9][0-9]*)*$";

/** The statistics name of a game mode: `numTeams` team sizes joined by `v`. */
export function gameModeName(mode: { numTeams: number; numPlayersPerTeam: number }): string {
  return Array.from({ length: mode.numTeams }, () => String(mode.numPlayersPerTeam)).join("v");
}

const Count = { type: "integer", minimum: 0 } as const;

/**
 * Statistics are kept per `gameId` (one game mode of the tenant); each entry names its `mode` (the
 * field Idem's clients read) and its `gameId` (ours: Idem clients ignore unknown fields).
 */
const RestModeStatsProperties = {
  mode: { type: "string", pattern: MODE_NAME_PATTERN },
  gameId: GameIdField,
  matchesPlayed: Count,
  wins: Count,
  losses: Count,
  rating: { type: "number" },
  ratingUncertainty: { type: "number", minimum: 0 },
  rankingPoints: { type: "number", minimum: 0 },
  winRatio: {
    type: "number",
    minimum: 0,
    maximum: 1,
    description: "wins / matchesPlayed; 0 before any match",
  },
} as const;
const RestModeStatsRequired = [
  "mode",
  "gameId",
  "matchesPlayed",
  "wins",
  "losses",
  "rating",
  "ratingUncertainty",
  "rankingPoints",
  "winRatio",
] as const;

const RestModeStatsObject = {
  type: "object",
  required: RestModeStatsRequired,
  properties: RestModeStatsProperties,
  additionalProperties: false,
} as const;

/**
 * A season lists a mode only once the player has played it in that season, so it always has a
 * leaderboard position there: `rank` is never missing.
 */
const ModeStatsObject = {
  type: "object",
  required: [...RestModeStatsRequired, "rank"],
  properties: {
    ...RestModeStatsProperties,
    rank: { type: "integer", minimum: 1, description: "1-based leaderboard rank in the mode and season" },
  },
  additionalProperties: false,
} as const;

const RestSeasonStatsProperties = {
  season: SeasonNameField,
  seasonMatchesPlayed: Count,
  seasonWins: Count,
  seasonLosses: Count,
} as const;
const RestSeasonStatsRequired = [
  "season",
  "seasonMatchesPlayed",
  "seasonWins",
  "seasonLosses",
  "stats",
] as const;

const RestSeasonStatsObject = {
  type: "object",
  required: RestSeasonStatsRequired,
  properties: { ...RestSeasonStatsProperties, stats: { type: "array", items: RestModeStatsObject } },
  additionalProperties: false,
} as const;

const SeasonStatsObject = {
  type: "object",
  required: [...RestSeasonStatsRequired, "isCurrentSeason"],
  properties: {
    ...RestSeasonStatsProperties,
    isCurrentSeason: { type: "boolean" },
    stats: { type: "array", items: ModeStatsObject },
  },
  additionalProperties: false,
} as const;

const PlayerStatsProperties = {
  playerId: { type: "string", minLength: 1 },
  totalMatchesPlayed: Count,
  totalWins: Count,
  totalLosses: Count,
} as const;
const PlayerStatsRequired = [
  "playerId",
  "totalMatchesPlayed",
  "totalWins",
  "totalLosses",
  "seasons",
] as const;

/** PlayerStats as the `getPlayerStats` action answers it. */
export const PlayerStatsSchema = {
  $id: "PlayerStats",
  type: "object",
  required: PlayerStatsRequired,
  properties: { ...PlayerStatsProperties, seasons: { type: "array", items: SeasonStatsObject } },
  additionalProperties: false,
} as const;
export type PlayerStats = FromSchema<typeof PlayerStatsSchema>;
export type SeasonStats = PlayerStats["seasons"][number];
export type ModeStats = SeasonStats["stats"][number];

/** PlayerStats as `GET /players/{playerId}` answers it: no `rank`, no `isCurrentSeason`. */
export const RestPlayerStatsSchema = {
  $id: "RestPlayerStats",
  type: "object",
  required: PlayerStatsRequired,
  properties: { ...PlayerStatsProperties, seasons: { type: "array", items: RestSeasonStatsObject } },
  additionalProperties: false,
} as const;
export type RestPlayerStats = FromSchema<typeof RestPlayerStatsSchema>;
export type RestSeasonStats = RestPlayerStats["seasons"][number];
export type RestModeStats = RestSeasonStats["stats"][number];

/** The REST shape of message-shaped stats: the same object without `isCurrentSeason` and `rank`. */
export function toRestPlayerStats(stats: PlayerStats): RestPlayerStats {
  return {
    ...stats,
    seasons: stats.seasons.map(({ isCurrentSeason: _current, stats: modes, ...season }) => ({
      ...season,
      stats: modes.map(({ rank: _rank, ...mode }) => mode),
    })),
  };
}

const Timestamp = { type: "string", format: "date-time" } as const;
/** A timestamp a client sends: `date-time` allows any number of fraction digits, so it is bounded too. */
const RequestTimestamp = { ...Timestamp, maxLength: 64 } as const;
const RatingCarryOver = {
  type: "number",
  minimum: 0,
  maximum: 1,
  description:
    "Share of each rating's distance from the default that is kept: 1 keeps ratings, 0 resets them to the default.",
} as const;

const SeasonObject = {
  type: "object",
  required: ["season", "startsAt", "endsAt", "isCurrentSeason", "ratingCarryOver"],
  properties: {
    season: SeasonNameField,
    startsAt: Timestamp,
    /** When the next season started; null for the current season and a scheduled one. */
    endsAt: { type: ["string", "null"], format: "date-time" },
    isCurrentSeason: { type: "boolean" },
    /** The factor applied when this season started; null for S1, which starts from the defaults. */
    ratingCarryOver: { ...RatingCarryOver, type: ["number", "null"] },
  },
  additionalProperties: false,
} as const;

/** A season, as `POST /seasons` answers it (201) and `GET /seasons` lists it. */
export const SeasonSchema = { $id: "Season", ...SeasonObject } as const;
export type Season = FromSchema<typeof SeasonSchema>;

/** `GET /seasons`: the tenant's seasons, oldest first, the current one marked and named. */
export const SeasonListSchema = {
  $id: "SeasonList",
  type: "object",
  required: ["currentSeason", "seasons"],
  properties: {
    currentSeason: SeasonNameField,
    seasons: { type: "array", minItems: 1, items: SeasonObject },
  },
  additionalProperties: false,
} as const;
export type SeasonList = FromSchema<typeof SeasonListSchema>;

/** `POST /seasons` (admin): starts season S<N+1>. Ours, with no legacy clients: closed. */
export const CreateSeasonRequestSchema = {
  $id: "CreateSeasonRequest",
  type: "object",
  properties: {
    startsAt: { ...RequestTimestamp, description: SEASON_START },
    ratingCarryOver: { ...RatingCarryOver, default: DEFAULT_RATING_CARRY_OVER },
  },
  additionalProperties: false,
} as const;
export type CreateSeasonRequest = FromSchema<
  typeof CreateSeasonRequestSchema,
  { keepDefaultedPropertiesOptional: true }
>;

export const validatePlayerStats = compile<PlayerStats>(PlayerStatsSchema);
export const validateRestPlayerStats = compile<RestPlayerStats>(RestPlayerStatsSchema);
export const validateSeason = compile<Season>(SeasonSchema);
export const validateSeasonList = compile<SeasonList>(SeasonListSchema);
export const validateCreateSeasonRequest = compile<CreateSeasonRequest>(CreateSeasonRequestSchema);

// ---- player history (`GET /players/{playerId}/history`) ----

/** At most this many results per history page; the default page is smaller. */
export const MAX_HISTORY_LIMIT = 100;
export const DEFAULT_HISTORY_LIMIT = 20;

/**
 * The query of `GET /players/{playerId}/history` once read from the URL (`limit` as a number).
 * `cursor` is the `nextCursor` of the previous page, opaque to clients.
 */
export const PlayerHistoryQuerySchema = {
  $id: "PlayerHistoryQuery",
  type: "object",
  properties: {
    gameId: GameIdField,
    season: SeasonNameField,
    limit: { type: "integer", minimum: 1, maximum: MAX_HISTORY_LIMIT, default: DEFAULT_HISTORY_LIMIT },
    cursor: idField(512),
  },
  additionalProperties: false,
} as const;
export type PlayerHistoryQuery = FromSchema<
  typeof PlayerHistoryQuerySchema,
  { keepDefaultedPropertiesOptional: true }
>;

/** A player's standing on the display scale (the figures `PlayerStats` shows) at one moment. */
const StandingObject = {
  type: "object",
  required: ["rating", "ratingUncertainty", "rankingPoints"],
  properties: {
    rating: { type: "number" },
    ratingUncertainty: { type: "number", minimum: 0 },
    rankingPoints: { type: "integer", minimum: 0 },
  },
  additionalProperties: false,
} as const;

const HistoryEntryObject = {
  type: "object",
  required: [
    "matchId",
    "gameId",
    "mode",
    "season",
    "completedAt",
    "teamRank",
    "outcome",
    "score",
    "predictedWinChance",
    "before",
    "after",
  ],
  properties: {
    matchId: { type: "string", minLength: 1 },
    gameId: GameIdField,
    mode: { type: "string", pattern: MODE_NAME_PATTERN },
    season: SeasonNameField,
    completedAt: Timestamp,
    teamRank: { type: "integer", minimum: 0, description: "The player's team's rank; 0 = winners." },
    outcome: { type: "string", enum: ["win", "loss", "draw"] },
    score: { type: "number", description: "The player's performance figure, as the game reported it." },
    predictedWinChance: {
      type: "number",
      minimum: 0,
      maximum: 1,
      description: "The team's chance to win before the match (openskill predictWin).",
    },
    before: StandingObject,
    after: StandingObject,
  },
  additionalProperties: false,
} as const;

/** `GET /players/{playerId}/history`: the latest results first; `nextCursor` null on the last page. */
export const PlayerHistorySchema = {
  $id: "PlayerHistory",
  type: "object",
  required: ["playerId", "results", "nextCursor"],
  properties: {
    playerId: { type: "string", minLength: 1 },
    results: { type: "array", maxItems: MAX_HISTORY_LIMIT, items: HistoryEntryObject },
    nextCursor: { type: ["string", "null"] },
  },
  additionalProperties: false,
} as const;
export type PlayerHistory = FromSchema<typeof PlayerHistorySchema>;
export type PlayerHistoryEntry = PlayerHistory["results"][number];

export const validatePlayerHistoryQuery = compile<PlayerHistoryQuery>(PlayerHistoryQuerySchema);
export const validatePlayerHistory = compile<PlayerHistory>(PlayerHistorySchema);

/**
 * Idem's season reset (`POST /admin/season/reset`, admin role): the same operation as
 * `POST /seasons`, with a carry-over per game. `seasonName` must be the next season (`S<N+1>`);
 * `percentage` is the share of each rating's distance from the default that is kept, in percent
 * (100 keeps ratings, 0 resets them); games not listed use DEFAULT_RATING_CARRY_OVER. The body is
 * Idem's, so it stays open.
 */
export const SeasonResetRequestSchema = {
  $id: "SeasonResetRequest",
  type: "object",
  required: ["seasonName"],
  properties: {
    seasonName: SeasonNameField,
    seasonStart: { ...RequestTimestamp, description: SEASON_START },
    percentages: {
      type: "array",
      maxItems: 1000,
      items: {
        type: "object",
        required: ["gameId", "percentage"],
        properties: { gameId: GameIdField, percentage: { type: "number", minimum: 0, maximum: 100 } },
      },
    },
  },
} as const;
export type SeasonResetRequest = FromSchema<typeof SeasonResetRequestSchema>;
export const validateSeasonResetRequest = compile<SeasonResetRequest>(SeasonResetRequestSchema);
