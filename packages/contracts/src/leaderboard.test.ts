import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { INT32_MAX } from "./fields.js";
import {
  LEADERBOARD_LIMITS,
  leaderboardVariant,
  validateLeaderboardRequest,
  validateLeaderboardResponse,
} from "./leaderboard.js";

describe("leaderboard request", () => {
  it("accepts the three variants of Idem's documentation at their limits", () => {
    expect(validateLeaderboardRequest({ count: 500 })).toBe(true);
    expect(validateLeaderboardRequest({ count: 100, fromRank: 401 })).toBe(true);
    expect(validateLeaderboardRequest({ count: 50, playerId: "player_1", season: "S3" })).toBe(true);
  });

  it("tells the variants apart", () => {
    expect(leaderboardVariant({ count: 10 })).toBe("fromTop");
    expect(leaderboardVariant({ count: 10, fromRank: 11 })).toBe("fromRank");
    expect(leaderboardVariant({ count: 10, playerId: "p" })).toBe("aroundPlayer");
    expect(LEADERBOARD_LIMITS).toEqual({ fromTop: 500, fromRank: 100, aroundPlayer: 50 });
  });

  it("names the from-top limit", () => {
    expect(fieldErrorsOf(validateLeaderboardRequest, { count: 501 })).toEqual([
      { pointer: "/count", detail: "must be <= 500" },
    ]);
  });

  it("names the from-rank limit and the field that selects it", () => {
    expect(fieldErrorsOf(validateLeaderboardRequest, { count: 101, fromRank: 1 })).toEqual([
      { pointer: "/count", detail: "must be <= 100 when fromRank is given" },
    ]);
  });

  it("names the around-player limit and the field that selects it", () => {
    expect(fieldErrorsOf(validateLeaderboardRequest, { count: 51, playerId: "player_1" })).toEqual([
      { pointer: "/count", detail: "must be <= 50 when playerId is given" },
    ]);
  });

  it("rejects fromRank together with playerId at /fromRank", () => {
    expect(
      fieldErrorsOf(validateLeaderboardRequest, { count: 10, fromRank: 1, playerId: "player_1" }),
    ).toEqual([{ pointer: "/fromRank", detail: "is not allowed when playerId is given" }]);
  });

  it("bounds fromRank by PostgreSQL's integer", () => {
    expect(validateLeaderboardRequest({ count: 10, fromRank: INT32_MAX })).toBe(true);
    for (const fromRank of [INT32_MAX + 1, 1e308]) {
      expect(fieldErrorsOf(validateLeaderboardRequest, { count: 10, fromRank })).toEqual([
        { pointer: "/fromRank", detail: "must be <= 2147483647" },
      ]);
    }
  });

  it("rejects a zero count, rank 0 and a malformed season once each", () => {
    expect(fieldErrorsOf(validateLeaderboardRequest, { count: 0, fromRank: 0, season: "season-1" })).toEqual([
      { pointer: "/count", detail: "must be >= 1" },
      { pointer: "/fromRank", detail: "must be >= 1" },
      { pointer: "/season", detail: "must be a season name, S1 to S2147483647" },
    ]);
  });
});

describe("leaderboard response", () => {
  it("accepts entries in rank order with snake_case ranking points, as Idem's documentation shows", () => {
    expect(
      validateLeaderboardResponse({
        leaderboard: [
          { playerId: "player_7", rank: 1, ranking_points: 340 },
          { playerId: "player_2", rank: 2, ranking_points: 310.5 },
        ],
        season: "S2",
      }),
    ).toBe(true);
  });

  it("rejects a camelCase rankingPoints entry, which Idem clients would not read", () => {
    expect(
      fieldErrorsOf(validateLeaderboardResponse, {
        leaderboard: [{ playerId: "p", rank: 1, rankingPoints: 3 }],
        season: "S1",
      }),
    ).toEqual([
      { pointer: "/leaderboard/0/ranking_points", detail: "is required" },
      { pointer: "/leaderboard/0/rankingPoints", detail: "is not an allowed property" },
    ]);
  });
});
