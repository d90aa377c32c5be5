import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { INT32_MAX } from "./fields.js";
import {
  type DeliveredMatch,
  type PlayerResult,
  validateCompleteMatchRequest,
  validateCompleteMatchResponse,
  validateConfirmMatchRequest,
  validateDeliveredMatchList,
  validateFailMatchRequest,
  validateFailMatchResponse,
  validateMatch,
} from "./matches.js";

const matchId = "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11";
const delivered: DeliveredMatch = {
  id: matchId,
  uuid: matchId,
  server: "eu-west-1",
  matchScore: 0.87,
  teams: [
    { players: [{ playerId: "player_1", reference: "steam:1" }] },
    { players: [{ playerId: "player_2", reference: null }] },
  ],
};

describe("delivered matches", () => {
  it("accepts a delivery of one 1v1 match with id and uuid", () => {
    expect(validateDeliveredMatchList([delivered])).toBe(true);
    expect(validateDeliveredMatchList([])).toBe(true);
  });

  it("rejects a team without players and a score above 1", () => {
    expect(
      fieldErrorsOf(validateDeliveredMatchList, [{ ...delivered, matchScore: 2, teams: [{ players: [] }] }]),
    ).toEqual([
      { pointer: "/0/matchScore", detail: "must be <= 1" },
      { pointer: "/0/teams/0/players", detail: "must NOT have fewer than 1 items" },
    ]);
  });

  it("answers a single match with its game, status and times", () => {
    const match = {
      ...delivered,
      gameId: "ranked-1v1",
      status: "confirmed",
      createdAt: "2026-11-02T10:00:00.000Z",
      updatedAt: "2026-11-02T10:00:05.000Z",
    };
    expect(validateMatch(match)).toBe(true);
    expect(fieldErrorsOf(validateMatch, { ...match, status: "running" })).toEqual([
      {
        pointer: "/status",
        detail: 'must be one of "suggested", "delivered", "confirmed", "completed", "failed"',
      },
    ]);
  });
});

describe("confirm and fail", () => {
  it("accepts an empty body and lists of players to remove or requeue", () => {
    expect(validateConfirmMatchRequest({})).toBe(true);
    expect(validateFailMatchRequest({ remove: ["player_1"], requeue: ["player_2"] })).toBe(true);
  });

  it("rejects a player listed twice and a list that is not of ids", () => {
    expect(fieldErrorsOf(validateFailMatchRequest, { remove: ["p", "p"], requeue: [3] })).toEqual([
      { pointer: "/remove", detail: "must NOT have duplicate items (items ## 1 and 0 are identical)" },
      { pointer: "/requeue/0", detail: "must be string" },
    ]);
  });

  it("answers a failure with who was removed and who was requeued", () => {
    expect(
      validateFailMatchResponse({
        removed: [{ playerId: "player_1", reference: null }],
        requeued: [{ playerId: "player_2", reference: "r2" }],
      }),
    ).toBe(true);
  });
});

describe("completing a match", () => {
  const body = {
    server: "eu-west-1",
    gameLength: 642.5,
    teams: [
      { rank: 0, players: [{ playerId: "player_1", score: 21 }] },
      { rank: 1, players: [{ playerId: "player_2", score: 17 }] },
    ],
  };

  it("accepts the result of Idem's documentation with ranks and scores", () => {
    expect(validateCompleteMatchRequest(body)).toBe(true);
    expect(validateCompleteMatchRequest({ teams: body.teams })).toBe(true);
  });

  it("accepts a tie as two teams of the same rank", () => {
    expect(validateCompleteMatchRequest({ teams: body.teams.map((t) => ({ ...t, rank: 0 })) })).toBe(true);
  });

  it("rejects a negative or fractional rank and a player without a score", () => {
    const teams = [
      { rank: -1, players: [{ playerId: "player_1", score: 1 }] },
      { rank: 0.5, players: [{ playerId: "player_2" }] },
    ];
    expect(fieldErrorsOf(validateCompleteMatchRequest, { teams })).toEqual([
      { pointer: "/teams/0/rank", detail: "must be >= 0" },
      { pointer: "/teams/1/rank", detail: "must be integer" },
      { pointer: "/teams/1/players/0/score", detail: "is required" },
    ]);
  });

  it("bounds a rank by PostgreSQL's integer", () => {
    const team = (rank: number) => ({ rank, players: [{ playerId: "player_1", score: 1 }] });
    expect(validateCompleteMatchRequest({ teams: [team(INT32_MAX)] })).toBe(true);
    for (const rank of [INT32_MAX + 1, 1e308]) {
      expect(fieldErrorsOf(validateCompleteMatchRequest, { teams: [team(rank)] })).toEqual([
        { pointer: "/teams/0/rank", detail: "must be <= 2147483647" },
      ]);
    }
  });

  const result: PlayerResult = {
    playerId: "player_1",
    rating: 26.1,
    ratingUncertainty: 7.9,
    rankingPoints: 24,
    ratingDeltaLastGame: 1.1,
    rankingDeltaLastGame: 24,
    wins: 1,
    losses: 0,
    matchesPlayed: 1,
    winRatio: 1,
    seasonWins: 1,
    seasonLosses: 0,
    seasonMatchesPlayed: 1,
    totalWins: 1,
    totalLosses: 0,
    totalMatchesPlayed: 1,
    season: "S1",
  };

  it("answers every player's result with exactly the fields of Idem's documentation", () => {
    expect(validateCompleteMatchResponse({ players: [result] })).toBe(true);
    const { season: _omitted, ...incomplete } = result;
    expect(
      fieldErrorsOf(validateCompleteMatchResponse, { players: [{ ...incomplete, mode: "1v1" }] }),
    ).toEqual([
      { pointer: "/players/0/season", detail: "is required" },
      { pointer: "/players/0/mode", detail: "is not an allowed property" },
    ]);
  });
});
