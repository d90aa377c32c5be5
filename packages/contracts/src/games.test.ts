import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  DEFAULT_CONFIRMATION_TIMEOUT,
  DEFAULT_MAX_QUEUE_SECONDS,
  type GameConfigRequest,
  validateGameConfig,
  validateGameConfigRequest,
  withGameConfigDefaults,
} from "./games.js";
import { DEFAULT_TARGET_WAITING_TIME } from "./matchmaking.js";

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
