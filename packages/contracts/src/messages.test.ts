import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  MESSAGE_ACTIONS,
  type MessagePayload,
  messagePayloadValidators,
  messageResponsePayloadValidators,
  responseAction,
  validateBackfillingMatchSuggestionMessage,
  validateClientMessage,
  validateGetPlayerStatsMessage,
  validateGetPlayerStatsResponseMessage,
  validateKeepAliveMessage,
  validateMatchSuggestionMessage,
  validateServerErrorMessage,
  validateServerResponse,
} from "./messages.js";
import { toFieldErrors } from "./validation.js";

assertType<Equal<MessagePayload<"getPlayerStats">["seasons"], string[] | undefined>>();
assertType<Equal<ReturnType<typeof responseAction<"getPlayerStats">>, "getPlayerStatsResponse">>();

const matchId = "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11";
const playerStats = {
  playerId: "player_1",
  totalMatchesPlayed: 0,
  totalWins: 0,
  totalLosses: 0,
  seasons: [],
};

describe("request envelope", () => {
  it("accepts the getPlayerStats request of the source document", () => {
    const message = {
      action: "getPlayerStats",
      messageId: "nfasooa73zga9p3ja",
      payload: { playerId: "player_1", seasons: ["S1", "S2"] },
    };
    expect(validateClientMessage(message)).toBe(true);
    expect(validateGetPlayerStatsMessage(message)).toBe(true);
  });

  it("accepts a null or missing messageId, which Idem documents as optional", () => {
    expect(validateClientMessage({ action: "getPlayers", messageId: null, payload: { gameId: "1v1" } })).toBe(
      true,
    );
    expect(validateClientMessage({ action: "subscribe", payload: { gameId: "1v1" } })).toBe(true);
  });

  it("rejects an unknown action and names it", () => {
    expect(fieldErrorsOf(validateClientMessage, { action: "getMatch", payload: {} })[0]?.pointer).toBe(
      "/action",
    );
  });

  it("lists the eleven actions of the contract", () => {
    expect(MESSAGE_ACTIONS).toHaveLength(11);
    expect(responseAction("addPlayer")).toBe("addPlayerResponse");
  });
});

describe("action payloads", () => {
  it("accepts each action's REST body plus its path parameters", () => {
    const payloads = {
      addPlayer: { gameId: "1v1", partyName: "player_1_1276543", players: [{ playerId: "player_1" }] },
      removePlayer: { gameId: "1v1", playerId: "player_1", force: true },
      getPlayers: { gameId: "1v1" },
      getMatches: { gameId: "1v1" },
      updateMatchConfirmed: { gameId: "1v1", matchId },
      updateMatchFailed: { gameId: "1v1", matchId, remove: ["player_1"] },
      updateMatchCompleted: {
        gameId: "1v1",
        matchId,
        teams: [
          { rank: 0, players: [{ playerId: "player_1", score: 3 }] },
          { rank: 1, players: [{ playerId: "player_2", score: 1 }] },
        ],
      },
      requestBackfilling: { gameId: "1v1", matchId, droppedPlayerId: "player_2" },
      cancelBackfillingRequest: { gameId: "1v1", matchId, backfillingRequestId: "bf-1" },
      getPlayerStats: { playerId: "player_1" },
      subscribe: { gameId: "1v1" },
    };
    for (const action of MESSAGE_ACTIONS) {
      const validate = messagePayloadValidators[action];
      expect([action, validate(payloads[action])]).toEqual([action, true]);
    }
  });

  it("names the missing game id under /payload", () => {
    const validate = messagePayloadValidators.addPlayer;
    expect(validate({ players: [{}] })).toBe(false);
    expect(toFieldErrors(validate.errors, "/payload")).toEqual([
      { pointer: "/payload/gameId", detail: "is required" },
    ]);
  });

  it("rejects more than five seasons and a malformed season in getPlayerStats", () => {
    expect(
      fieldErrorsOf(messagePayloadValidators.getPlayerStats, {
        playerId: "player_1",
        seasons: ["S1", "S2", "S3", "S4", "S5", "S6"],
      }),
    ).toEqual([{ pointer: "/seasons", detail: "must NOT have more than 5 items" }]);
    expect(fieldErrorsOf(messagePayloadValidators.getPlayerStats, { playerId: "p", seasons: ["2"] })).toEqual(
      [{ pointer: "/seasons/0", detail: 'must match pattern "^S[1-9][0-9]*$"' }],
    );
  });
});

describe("answers and errors", () => {
  it("answers getPlayerStats with PlayerStats as payload", () => {
    const answer = { action: "getPlayerStatsResponse", messageId: "nfasooa73zga9p3ja", payload: playerStats };
    expect(validateServerResponse(answer)).toBe(true);
    expect(validateGetPlayerStatsResponseMessage(answer)).toBe(true);
    expect(messageResponsePayloadValidators.getPlayerStats(playerStats)).toBe(true);
  });

  it("wraps list answers in objects and answers REST 204s with the ids acted on", () => {
    expect(
      messageResponsePayloadValidators.getPlayers({
        gameId: "1v1",
        players: [{ playerId: "p", state: "waiting", reference: null }],
      }),
    ).toBe(true);
    expect(messageResponsePayloadValidators.getMatches({ gameId: "1v1", matches: [] })).toBe(true);
    expect(messageResponsePayloadValidators.updateMatchConfirmed({ gameId: "1v1", matchId })).toBe(true);
  });

  it("carries errors as an HTTP status code and a message", () => {
    expect(
      validateServerErrorMessage({
        action: "getPlayerStatsResponse",
        messageId: "m1",
        error: { code: 404, message: "Player player_9 not found" },
      }),
    ).toBe(true);
    expect(
      validateServerErrorMessage({
        action: "addPlayerResponse",
        messageId: null,
        error: {
          code: 400,
          message: "Request validation failed",
          errors: [{ pointer: "/payload/gameId", detail: "is required" }],
        },
      }),
    ).toBe(true);
  });

  it("rejects an error code that is not an HTTP error status and an action without Response", () => {
    expect(
      fieldErrorsOf(validateServerErrorMessage, {
        action: "addPlayer",
        messageId: null,
        error: { code: 200, message: "" },
      }),
    ).toEqual([
      { pointer: "/action", detail: 'must match pattern "Response$"' },
      { pointer: "/error/code", detail: "must be >= 400" },
    ]);
  });
});

describe("server pushes", () => {
  it("pushes a match suggestion with its game", () => {
    const match = {
      id: matchId,
      uuid: matchId,
      server: "eu-west-1",
      matchScore: 1,
      teams: [
        { players: [{ playerId: "p1", reference: null }] },
        { players: [{ playerId: "p2", reference: null }] },
      ],
    };
    expect(
      validateMatchSuggestionMessage({
        action: "matchSuggestion",
        messageId: null,
        payload: { gameId: "1v1", match },
      }),
    ).toBe(true);
  });

  it("pushes a backfill replacement", () => {
    expect(
      validateBackfillingMatchSuggestionMessage({
        action: "backfillingMatchSuggestion",
        messageId: null,
        payload: {
          backfillingRequestId: "bf-1",
          gameId: "1v1",
          matchId,
          droppedPlayerId: "p2",
          server: "eu-west-1",
          replacement: { playerId: "p3", reference: null },
        },
      }),
    ).toBe(true);
  });

  it("sends keep-alives with an empty payload", () => {
    expect(validateKeepAliveMessage({ action: "keepAlive", messageId: null, payload: {} })).toBe(true);
    expect(
      fieldErrorsOf(validateKeepAliveMessage, { action: "keepAlive", messageId: null, payload: { t: 1 } }),
    ).toEqual([{ pointer: "/payload/t", detail: "is not an allowed property" }]);
  });
});
