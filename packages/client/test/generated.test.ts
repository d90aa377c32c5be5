import { readFileSync } from "node:fs";
import type * as Contracts from "@arena/contracts";
import { describe, expect, it } from "@jest/globals";
// @ts-expect-error: a plain ESM script without declarations; the test only calls its two exports.
import { generateOperations, OUTPUT } from "../scripts/generate.mjs";
import type * as Generated from "../src/generated/operations.js";

describe("src/generated/operations.ts", () => {
  it("is what the generator makes of the current contracts (run `pnpm --filter @arena/client generate`)", () => {
    expect(readFileSync(OUTPUT, "utf8")).toBe(generateOperations());
  });
});

/*
 * Type-level checks, done by `tsc` (the package's typecheck): an answer type the SDK resolves to is
 * the contracts' type both ways, and every value of a contract's request type is accepted as the
 * SDK's request body (a request property with a default may be left out in the SDK's type, where
 * some contract types make it required, as the server fills it in).
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Accepts<Sdk, Contract> = [Contract] extends [Sdk] ? true : false;
const yes = <T extends true>(): T | undefined => undefined;

yes<Same<Generated.ErrorCode, Contracts.ErrorCode>>();
yes<Same<Generated.GameConfig, Contracts.GameConfig>>();
yes<Same<Generated.SubmitPlayersResponse, Contracts.SubmitPlayersResponse>>();
yes<Same<Generated.PlayerList, Contracts.PlayerList>>();
yes<Same<Generated.RemovePlayerResponsePayload, Contracts.MessageResponsePayloads["removePlayer"]>>();
yes<Same<Generated.QueueCleared, Contracts.QueueCleared>>();
yes<Same<Generated.DeliveredMatchList, Contracts.DeliveredMatchList>>();
yes<Same<Generated.Match, Contracts.Match>>();
yes<Same<Generated.FailMatchResponse, Contracts.FailMatchResponse>>();
yes<Same<Generated.CompleteMatchResponse, Contracts.CompleteMatchResponse>>();
yes<Same<Generated.BackfillCreated, Contracts.BackfillCreated>>();
yes<Same<Generated.BackfillStatus, Contracts.BackfillStatus>>();
yes<Same<Generated.RestPlayerStats, Contracts.RestPlayerStats>>();
yes<Same<Generated.PlayerHistory, Contracts.PlayerHistory>>();
yes<Same<Generated.LeaderboardResponse, Contracts.LeaderboardResponse>>();
yes<Same<Generated.SeasonList, Contracts.SeasonList>>();
yes<Same<Generated.Season, Contracts.Season>>();

yes<Accepts<Generated.GameConfigRequest, Contracts.GameConfigRequest>>();
yes<Accepts<Generated.SubmitPlayersRequest, Contracts.SubmitPlayersRequest>>();
yes<Accepts<Generated.ConfirmMatchRequest, Contracts.ConfirmMatchRequest>>();
yes<Accepts<Generated.FailMatchRequest, Contracts.FailMatchRequest>>();
yes<Accepts<Generated.CompleteMatchRequest, Contracts.CompleteMatchRequest>>();
yes<Accepts<Generated.BackfillRequest, Contracts.BackfillRequest>>();
yes<Accepts<Generated.LeaderboardRequest, Contracts.LeaderboardRequest>>();
yes<Accepts<Generated.CreateSeasonRequest, Contracts.CreateSeasonRequest>>();
yes<Accepts<Generated.SeasonResetRequest, Contracts.SeasonResetRequest>>();
