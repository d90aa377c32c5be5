import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import {
  validateBackfillCreated,
  validateBackfillRequest,
  validateBackfillStatus,
  validateBackfillSuggestion,
} from "./backfill.js";

const matchId = "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11";

describe("backfill request", () => {
  it("accepts the body of Idem's documentation with match scores", () => {
    expect(
      validateBackfillRequest({
        backfillingRequestId: "bf-1",
        droppedPlayerId: "player_3",
        matchScores: [
          {
            score: 5,
            players: [
              { playerId: "player_1", score: 3 },
              { playerId: "player_2", score: 2 },
            ],
          },
          { score: 4, players: [{ playerId: "player_4", score: 4 }] },
        ],
      }),
    ).toBe(true);
  });

  it("needs only the dropped player", () => {
    expect(validateBackfillRequest({ droppedPlayerId: "player_3" })).toBe(true);
    expect(fieldErrorsOf(validateBackfillRequest, { matchScores: [{ players: [] }] })).toEqual([
      { pointer: "/droppedPlayerId", detail: "is required" },
      { pointer: "/matchScores/0/score", detail: "is required" },
    ]);
  });

  it("answers the created request's id", () => {
    expect(validateBackfillCreated({ backfillingRequestId: "bf-1" })).toBe(true);
  });
});

describe("backfill state and push", () => {
  const status = {
    backfillingRequestId: "bf-1",
    gameId: "ranked-2v2",
    matchId,
    droppedPlayerId: "player_3",
    state: "searching",
    replacement: null,
    createdAt: "2026-11-02T10:00:00.000Z",
    updatedAt: "2026-11-02T10:00:00.000Z",
  };

  it("shows a searching request without a replacement and a delivered one with it", () => {
    expect(validateBackfillStatus(status)).toBe(true);
    expect(
      validateBackfillStatus({
        ...status,
        state: "delivered",
        replacement: { playerId: "player_9", reference: null },
      }),
    ).toBe(true);
  });

  it("rejects an unknown state", () => {
    expect(fieldErrorsOf(validateBackfillStatus, { ...status, state: "done" })).toEqual([
      { pointer: "/state", detail: 'must be one of "searching", "delivered", "cancelled", "timed-out"' },
    ]);
  });

  it("pushes the replacement with the match, the seat and the server", () => {
    expect(
      validateBackfillSuggestion({
        backfillingRequestId: "bf-1",
        gameId: "ranked-2v2",
        matchId,
        droppedPlayerId: "player_3",
        server: "eu-west-1",
        replacement: { playerId: "player_9", reference: "steam:9" },
      }),
    ).toBe(true);
  });
});
