import {
  type LeaderboardReadBatch,
  type LeaderboardRequest,
  type LeaderboardResponse,
  type LeaderboardVariant,
  leaderboardBatchLine,
  leaderboardBatchText,
  leaderboardVariant,
} from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import { requireGameExists } from "../games/game-operations.js";
import type { GameStore } from "../games/game-store.js";
import { type CheckedOperation, JsonText, type SomeOperationHandlers } from "../http/operation-routes.js";
import { seasonName, seasonNumber } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import type { BoardRef, LeaderboardStore, RankedEntry } from "./leaderboard-store.js";

export interface LeaderboardOperationDeps {
  games: GameStore;
  seasons: SeasonStore;
  leaderboards: LeaderboardStore;
  reads?: { inc(labels: { variant: LeaderboardVariant }): void };
}

export function leaderboardOperations(deps: LeaderboardOperationDeps) {
  return {
    getLeaderboard: async ({ caller, params, body }) => {
      const request = body as LeaderboardRequest;
      const { tenantId } = caller;
      const { gameId } = params;
      await requireGameExists(deps.games, tenantId, gameId);
      const current = (await deps.seasons.current(tenantId)).number;
      const season = request.season === undefined ? current : seasonNumber(request.season)!;
      if (season > current) throw new AppError("NOT_FOUND", `Season ${request.season} has not started`);
      const variant = leaderboardVariant(request);
      deps.reads?.inc({ variant });
      const entries = await readBoard(deps.leaderboards, { tenantId, gameId, season }, variant, request);
      const answer: LeaderboardResponse = {
        leaderboard: entries.map((e) => ({ playerId: e.playerId, rank: e.rank, ranking_points: e.points })),
        season: seasonName(season),
      };
      return answer;
    },
  } satisfies SomeOperationHandlers;
}

/**
 * getLeaderboardBatch, the gateway's reads of one board sent together: each runs as a
 * getLeaderboard call of its own (`getLeaderboard`: the operation's role, body checks and handler),
 * all at once. A read that succeeds answers its leaderboard, one that fails its status only; the
 * gateway sends that one again by itself, so its client gets the operation's whole answer.
 *
 * The answer is JSON laid out one answer to a line, `{"status":200,"body":` first on a success's
 * line: the gateway takes each body's bytes from its line as they are, without parsing the batch
 * (the layout of `leaderboardBatchText` in the contracts).
 */
export function leaderboardBatchOperations(getLeaderboard: CheckedOperation) {
  return {
    getLeaderboardBatch: async ({ caller, params, body }) => {
      const { reads } = body as LeaderboardReadBatch;
      const gameId = { gameId: params.gameId };
      const lines = await Promise.all(
        reads.map((read) =>
          getLeaderboard(caller, { ...gameId }, undefined, () => read).then(
            (leaderboard) => leaderboardBatchLine({ status: 200, body: leaderboard as LeaderboardResponse }),
            (err: unknown) => leaderboardBatchLine({ status: err instanceof AppError ? err.status : 500 }),
          ),
        ),
      );
      return new JsonText(leaderboardBatchText(lines));
    },
  } satisfies SomeOperationHandlers;
}

async function readBoard(
  leaderboards: LeaderboardStore,
  ref: BoardRef,
  variant: LeaderboardVariant,
  request: LeaderboardRequest,
): Promise<RankedEntry[]> {
  if (variant !== "aroundPlayer") return leaderboards.range(ref, (request.fromRank ?? 1) - 1, request.count);
  const around = await leaderboards.around(ref, request.playerId!, request.count);
  if (!around) {
    throw new AppError(
      "NOT_FOUND",
      `Player ${request.playerId} has no entry in ${seasonName(ref.season)} of ${ref.gameId}`,
    );
  }
  return around;
}
