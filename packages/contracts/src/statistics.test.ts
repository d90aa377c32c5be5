import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  type CreateSeasonRequest,
  gameModeName,
  type ModeStats,
  type PlayerStats,
  type RestModeStats,
  toRestPlayerStats,
  validateCreateSeasonRequest,
  validatePlayerHistory,
  validatePlayerHistoryQuery,
  validatePlayerStats,
  validateRestPlayerStats,
  validateSeason,
  validateSeasonList,
  validateSeasonResetRequest,
} from "./statistics.js";

// The REST shape is exactly the message shape minus `rank` (and `isCurrentSeason` one level up).
assertType<Equal<RestModeStats, Omit<ModeStats, "rank">>>();
assertType<Equal<CreateSeasonRequest["ratingCarryOver"], number | undefined>>();

const modeStats = {
  mode: "2v2",
  gameId: "ranked-2v2",
  matchesPlayed: 12,
  wins: 7,
  losses: 4,
  rating: 27.4,
  ratingUncertainty: 3.1,
  rankingPoints: 140,
  rank: 3,
  winRatio: 7 / 12,
};

const playerStats: PlayerStats = {
  playerId: "player-42",
  totalMatchesPlayed: 30,
  totalWins: 16,
  totalLosses: 13,
  seasons: [
    {
      season: "S2",
      isCurrentSeason: true,
      seasonMatchesPlayed: 12,
      seasonWins: 7,
      seasonLosses: 4,
      stats: [modeStats],
    },
    {
      season: "S1",
      isCurrentSeason: false,
      seasonMatchesPlayed: 18,
      seasonWins: 9,
      seasonLosses: 9,
      stats: [{ ...modeStats, mode: "1v1", matchesPlayed: 18, wins: 9, losses: 9, winRatio: 0.5, rank: 11 }],
    },
  ],
};

describe("PlayerStats", () => {
  it("accepts the getPlayerStats answer of Idem's documentation with current and previous season", () => {
    expect(validatePlayerStats(playerStats)).toBe(true);
  });

  it("accepts a player who has not played yet", () => {
    expect(
      validatePlayerStats({
        playerId: "p",
        totalMatchesPlayed: 0,
        totalWins: 0,
        totalLosses: 0,
        seasons: [],
      }),
    ).toBe(true);
  });

  it("requires rank and isCurrentSeason in the message shape", () => {
    const { rank: _rank, ...noRank } = modeStats;
    const [season] = playerStats.seasons;
    const { isCurrentSeason: _current, ...bareSeason } = { ...season!, stats: [noRank] };
    expect(fieldErrorsOf(validatePlayerStats, { ...playerStats, seasons: [bareSeason] })).toEqual([
      { pointer: "/seasons/0/isCurrentSeason", detail: "is required" },
      { pointer: "/seasons/0/stats/0/rank", detail: "is required" },
    ]);
  });

  it("rejects a malformed season name, negative ranking points and a win ratio above 1", () => {
    const [season] = playerStats.seasons;
    const bad = { ...season!, season: "S0", stats: [{ ...modeStats, rankingPoints: -1, winRatio: 1.5 }] };
    expect(fieldErrorsOf(validatePlayerStats, { ...playerStats, seasons: [bad] })).toEqual([
      { pointer: "/seasons/0/season", detail: "must be a season name, S1 to S2147483647" },
      { pointer: "/seasons/0/stats/0/rankingPoints", detail: "must be >= 0" },
      { pointer: "/seasons/0/stats/0/winRatio", detail: "must be <= 1" },
    ]);
  });
});

describe("REST PlayerStats", () => {
  it("is the message shape without rank and isCurrentSeason", () => {
    const rest = toRestPlayerStats(playerStats);
    expect(validateRestPlayerStats(rest)).toBe(true);
    expect(rest.seasons[0]).not.toHaveProperty("isCurrentSeason");
    expect(rest.seasons[0]?.stats[0]).not.toHaveProperty("rank");
    expect(rest.seasons[0]?.stats[0]?.rankingPoints).toBe(140);
  });

  it("rejects the message-only fields", () => {
    expect(fieldErrorsOf(validateRestPlayerStats, playerStats)).toEqual([
      { pointer: "/seasons/0/isCurrentSeason", detail: "is not an allowed property" },
      { pointer: "/seasons/0/stats/0/rank", detail: "is not an allowed property" },
      { pointer: "/seasons/1/isCurrentSeason", detail: "is not an allowed property" },
      { pointer: "/seasons/1/stats/0/rank", detail: "is not an allowed property" },
    ]);
  });
});

describe("game mode names", () => {
  it("joins the team sizes with v", () => {
    expect(gameModeName({ numTeams: 2, numPlayersPerTeam: 2 })).toBe("2v2");
    expect(gameModeName({ numTeams: 4, numPlayersPerTeam: 1 })).toBe("1v1v1v1");
    expect(gameModeName({ numTeams: 1, numPlayersPerTeam: 4 })).toBe("4");
  });
});

describe("seasons", () => {
  const s1 = {
    season: "S1",
    startsAt: "2026-01-01T00:00:00.000Z",
    endsAt: "2026-06-01T00:00:00.000Z",
    isCurrentSeason: false,
    ratingCarryOver: null,
  };
  const s2 = {
    season: "S2",
    startsAt: "2026-06-01T00:00:00.000Z",
    endsAt: null,
    isCurrentSeason: true,
    ratingCarryOver: 0.5,
  };

  it("accepts the season list with the current season marked", () => {
    expect(validateSeason(s2)).toBe(true);
    expect(validateSeasonList({ currentSeason: "S2", seasons: [s1, s2] })).toBe(true);
  });

  it("accepts an empty create body and one with a start time and carry-over", () => {
    expect(validateCreateSeasonRequest({})).toBe(true);
    expect(validateCreateSeasonRequest({ startsAt: "2026-12-01T00:00:00Z", ratingCarryOver: 0.8 })).toBe(
      true,
    );
  });

  it("rejects a carry-over outside 0..1, a start that is not a date-time and unknown fields", () => {
    expect(
      fieldErrorsOf(validateCreateSeasonRequest, {
        startsAt: "next monday",
        ratingCarryOver: 1.2,
        name: "S9",
      }),
    ).toEqual([
      { pointer: "/name", detail: "is not an allowed property" },
      { pointer: "/startsAt", detail: 'must match format "date-time"' },
      { pointer: "/ratingCarryOver", detail: "must be <= 1" },
    ]);
  });
});

describe("player history and Idem's season reset", () => {
  it("reads a history query and refuses a limit above 100 or an unknown parameter", () => {
    expect(validatePlayerHistoryQuery({ gameId: "duel", season: "S2", limit: 50, cursor: "abc" })).toBe(true);
    expect(fieldErrorsOf(validatePlayerHistoryQuery, { limit: 101 })).toEqual([
      { pointer: "/limit", detail: "must be <= 100" },
    ]);
    expect(fieldErrorsOf(validatePlayerHistoryQuery, { sort: "asc" })).toEqual([
      { pointer: "/sort", detail: "is not an allowed property" },
    ]);
  });

  it("accepts a history page with the standing before and after", () => {
    const standing = { rating: 1500, ratingUncertainty: 333.33, rankingPoints: 0 };
    expect(
      validatePlayerHistory({
        playerId: "p",
        nextCursor: null,
        results: [
          {
            matchId: "m",
            gameId: "duel",
            mode: "1v1",
            season: "S1",
            completedAt: "2026-11-01T12:00:00.000Z",
            teamRank: 0,
            outcome: "win",
            score: 3,
            predictedWinChance: 0.5,
            before: standing,
            after: { ...standing, rankingPoints: 30 },
          },
        ],
      }),
    ).toBe(true);
  });

  it("accepts Idem's season reset body and refuses a percentage above 100", () => {
    expect(
      validateSeasonResetRequest({
        seasonName: "S2",
        seasonStart: "2026-12-01T00:00:00Z",
        percentages: [{ gameId: "duel", percentage: 80 }],
      }),
    ).toBe(true);
    expect(
      fieldErrorsOf(validateSeasonResetRequest, {
        seasonName: "S2",
        percentages: [{ gameId: "duel", percentage: 120 }],
      }),
    ).toEqual([{ pointer: "/percentages/0/percentage", detail: "must be <= 100" }]);
  });
});
