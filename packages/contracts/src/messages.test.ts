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
  validatePlayersRemovedMessage,
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
  it("accepts the getPlayerStats request of Idem's documentation", () => {
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

  it("lists the twelve actions of the contract", () => {
    expect(MESSAGE_ACTIONS).toHaveLength(12);
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
      subscribe: { gameIds: ["1v1", "2v2"], priority: 2, rateLimit: null },
      matchSuggestionDelivery: { gameId: "1v1", matchId: "3f1b9c7e-2a4d-4e8f-9b1a-6c5d4e3f2a1b" },
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
      [{ pointer: "/seasons/0", detail: "must be a season name, S1 to S2147483647" }],
    );
  });
});

describe("subscribe", () => {
  const validate = messagePayloadValidators.subscribe;

  it("takes one game as Idem's SDK sends it, several games, and both", () => {
    expect(validate({ gameId: "1v1" })).toBe(true);
    expect(validate({ gameIds: ["1v1"], priority: -3, rateLimit: 20 })).toBe(true);
    expect(validate({ gameId: "1v1", gameIds: ["2v2"] })).toBe(true);
  });

  it("needs at least one game", () => {
    expect(fieldErrorsOf(validate, {})).toEqual([{ pointer: "/gameId", detail: "is required" }]);
    expect(validate({ priority: 1 })).toBe(false);
    expect(fieldErrorsOf(validate, { gameIds: [] })).toEqual([
      { pointer: "/gameIds", detail: "must NOT have fewer than 1 items" },
    ]);
  });

  it("refuses a fractional priority and a rate limit below one push a minute", () => {
    expect(fieldErrorsOf(validate, { gameId: "1v1", priority: 1.5 })).toEqual([
      { pointer: "/priority", detail: "must be integer" },
    ]);
    expect(fieldErrorsOf(validate, { gameId: "1v1", rateLimit: 0 })).toEqual([
      { pointer: "/rateLimit", detail: "must be >= 1" },
    ]);
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

  it("echoes gameId (and matchId) in every game-scoped answer, as Idem's SDKs read them", () => {
    const player = { playerId: "p", reference: "ref" };
    const answers = {
      addPlayer: { gameId: "1v1", players: [{ ...player, state: "waiting" }] },
      removePlayer: { gameId: "1v1", ...player },
      updateMatchFailed: { gameId: "1v1", matchId, requeued: [player], removed: [] },
      updateMatchCompleted: { gameId: "1v1", matchId, players: [] },
      requestBackfilling: { gameId: "1v1", matchId, backfillingRequestId: "bf-1" },
      matchSuggestionDelivery: { gameId: "1v1", matchId },
      subscribe: { gameIds: ["1v1"], priority: 0, rateLimit: null },
    } as const;
    for (const [action, payload] of Object.entries(answers)) {
      const validate = messageResponsePayloadValidators[action as keyof typeof answers];
      expect([action, validate(payload)]).toEqual([action, true]);
      if ("gameId" in payload) {
        const { gameId: _gameId, ...withoutGame } = payload;
        expect([action, validate(withoutGame)]).toEqual([action, false]);
      }
    }
  });

  it("answers removePlayer with the removed player's reference, null when it had none", () => {
    const validate = messageResponsePayloadValidators.removePlayer;
    expect(validate({ gameId: "1v1", playerId: "p", reference: null })).toBe(true);
    expect(fieldErrorsOf(validate, { gameId: "1v1", playerId: "p" })).toEqual([
      { pointer: "/reference", detail: "is required" },
    ]);
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

  it("tells every subscriber of the game which waiting players expired", () => {
    const message = {
      action: "playersRemoved",
      messageId: null,
      payload: { gameId: "1v1", reason: "expired", players: [{ playerId: "p1", reference: null }] },
    };
    expect(validatePlayersRemovedMessage(message)).toBe(true);
    expect(
      fieldErrorsOf(validatePlayersRemovedMessage, {
        ...message,
        payload: { ...message.payload, reason: "left" },
      }),
    ).toEqual([{ pointer: "/payload/reason", detail: 'must be one of "expired"' }]);
  });

  it("sends keep-alives with a messageId, as every server message has, and an empty payload", () => {
    const keepAlive = { action: "keepAlive", messageId: "ka-1", payload: {} };
    expect(validateKeepAliveMessage(keepAlive)).toBe(true);
    expect(fieldErrorsOf(validateKeepAliveMessage, { ...keepAlive, payload: { t: 1 } })).toEqual([
      { pointer: "/payload/t", detail: "is not an allowed property" },
    ]);
    expect(fieldErrorsOf(validateKeepAliveMessage, { ...keepAlive, messageId: null })).toEqual([
      { pointer: "/messageId", detail: "must be string" },
    ]);
  });
});
