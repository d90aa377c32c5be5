import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  DEFAULT_CONFIRMATION_TIMEOUT,
  DEFAULT_MAX_QUEUE_SECONDS,
  type GameConfigRequest,
  GameConfigRequestSchema,
  MAX_GAME_TIMEOUT_SECONDS,
  MAX_QUEUE_SECONDS,
  validateGameConfig,
  validateGameConfigRequest,
  withGameConfigDefaults,
} from "./games.js";
import {
  DEFAULT_TARGET_WAITING_TIME,
  MAX_MATCH_PLAYERS,
  MAX_RATING_TOLERANCE,
  MAX_WAITING_SECONDS,
} from "./matchmaking.js";

assertType<Equal<GameConfigRequest["confirmationTimeout"], number | undefined>>();
assertType<Equal<GameConfigRequest["servers"], string[]>>();

const config = { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-west-1", "us-east-1"] };

describe("game config", () => {
  it("accepts a 2v2 game with its servers and the waiting times of a game mode", () => {
    expect(validateGameConfigRequest(config)).toBe(true);
    expect(
      validateGameConfigRequest({
        ...config,
        targetWaitingTime: 30,
        maxWaitingTime: 180,
        ratingTolerance: 5,
      }),
    ).toBe(true);
  });

  it("requires at least one server", () => {
    expect(fieldErrorsOf(validateGameConfigRequest, { numTeams: 2, numPlayersPerTeam: 1 })).toEqual([
      { pointer: "/servers", detail: "is required" },
    ]);
    expect(fieldErrorsOf(validateGameConfigRequest, { ...config, servers: [] })).toEqual([
      { pointer: "/servers", detail: "must NOT have fewer than 1 items" },
    ]);
  });

  it("keeps the game mode rule that a match needs two players", () => {
    expect(
      fieldErrorsOf(validateGameConfigRequest, { ...config, numTeams: 1, numPlayersPerTeam: 1 }),
    ).toEqual([{ pointer: "/numPlayersPerTeam", detail: "must be >= 2" }]);
  });

  it("rejects a misspelt option and maxLatency, which hosted server lists cannot use", () => {
    expect(
      fieldErrorsOf(validateGameConfigRequest, { ...config, targetWaitTime: 10, maxLatency: 50 }),
    ).toEqual([
      { pointer: "/targetWaitTime", detail: "is not an allowed property" },
      { pointer: "/maxLatency", detail: "is not an allowed property" },
    ]);
  });

  it("bounds the match size: each factor and their product at MAX_MATCH_PLAYERS", () => {
    for (const [numTeams, numPlayersPerTeam] of [
      [MAX_MATCH_PLAYERS, 1],
      [1, MAX_MATCH_PLAYERS],
      [2, MAX_MATCH_PLAYERS / 2],
    ]) {
      expect(validateGameConfigRequest({ ...config, numTeams, numPlayersPerTeam })).toBe(true);
    }
    expect(
      fieldErrorsOf(validateGameConfigRequest, { ...config, numTeams: 2, numPlayersPerTeam: 501 }),
    ).toEqual([{ pointer: "/numPlayersPerTeam", detail: "must keep numTeams × numPlayersPerTeam <= 1000" }]);
    // A factor out of bounds is one error, not one more for the product.
    expect(
      fieldErrorsOf(validateGameConfigRequest, { ...config, numTeams: 1e9, numPlayersPerTeam: 2 }),
    ).toEqual([{ pointer: "/numTeams", detail: "must be <= 1000" }]);
  });

  it("bounds every number of the config", () => {
    const maxima = {
      numTeams: MAX_MATCH_PLAYERS,
      numPlayersPerTeam: MAX_MATCH_PLAYERS,
      targetWaitingTime: MAX_WAITING_SECONDS,
      maxWaitingTime: MAX_WAITING_SECONDS,
      ratingTolerance: MAX_RATING_TOLERANCE,
      confirmationTimeout: MAX_GAME_TIMEOUT_SECONDS,
      backfillTimeout: MAX_GAME_TIMEOUT_SECONDS,
      maxQueueSeconds: MAX_QUEUE_SECONDS,
    };
    const numeric = Object.entries(GameConfigRequestSchema.properties).filter(([, field]) =>
      ["integer", "number"].includes(field.type as string),
    );
    expect(
      Object.fromEntries(numeric.map(([name, field]) => [name, "maximum" in field && field.maximum])),
    ).toEqual(maxima);
    for (const [name, maximum] of Object.entries(maxima)) {
      const base = name === "numTeams" ? { numPlayersPerTeam: 1 } : { numTeams: 1, numPlayersPerTeam: 2 };
      expect(validateGameConfigRequest({ ...config, ...base, [name]: maximum })).toBe(true);
      expect(fieldErrorsOf(validateGameConfigRequest, { ...config, ...base, [name]: maximum + 1 })).toEqual([
        { pointer: `/${name}`, detail: `must be <= ${maximum}` },
      ]);
    }
  });

  it("answers the stored config with its defaults filled in and its mode name", () => {
    const stored = {
      gameId: "ranked-2v2",
      mode: "2v2",
      ...withGameConfigDefaults(config),
      createdAt: "2026-11-02T10:00:00.000Z",
      updatedAt: "2026-11-02T10:00:00.000Z",
    };
    expect(stored.targetWaitingTime).toBe(DEFAULT_TARGET_WAITING_TIME);
    expect(stored.confirmationTimeout).toBe(DEFAULT_CONFIRMATION_TIMEOUT);
    expect(stored.maxQueueSeconds).toBe(DEFAULT_MAX_QUEUE_SECONDS);
    expect(validateGameConfig(stored)).toBe(true);
    const { confirmationTimeout: _omitted, ...partial } = stored;
    expect(fieldErrorsOf(validateGameConfig, partial)).toEqual([
      { pointer: "/confirmationTimeout", detail: "is required" },
    ]);
  });
});
