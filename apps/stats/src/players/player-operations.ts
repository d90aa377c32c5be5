import { DEFAULT_HISTORY_LIMIT, type PlayerHistory, type PlayerHistoryQuery } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { SomeOperationHandlers } from "../http/operation-routes.js";
import { displayRating, displayUncertainty } from "../ratings/display-scale.js";
import { seasonName, seasonNumber } from "../seasons/season-rules.js";
import { decodeHistoryCursor, encodeHistoryCursor } from "./history-cursor.js";
import type { GetPlayerStatsPayload, PlayerStatsService } from "./player-stats.js";
import type { HistoryRow, PlayerStatsStore } from "./player-stats-store.js";

export interface PlayerOperationDeps {
  playerStats: PlayerStatsService;
  stats: PlayerStatsStore;
}

export function playerOperations({ playerStats, stats }: PlayerOperationDeps) {
  return {
    getPlayerStats: ({ caller, params, query }) =>
      playerStats.getRestPlayerStats(caller.tenantId, params.playerId, seasonList(query.seasons)),
    // The getPlayerStats action for the gateway's WebSocket: PlayerStats with ranks; errors are
    // problems whose status the gateway turns into the message's error code.
    getPlayerStatsAction: ({ caller, body }) =>
      playerStats.getPlayerStats(caller.tenantId, body as GetPlayerStatsPayload),
    getPlayerHistory: async ({ caller, params, query }) => {
      const { tenantId } = caller;
      const { playerId } = params;
      const { gameId, season, cursor, limit = DEFAULT_HISTORY_LIMIT } = query as PlayerHistoryQuery;
      const before = cursor === undefined ? undefined : decodeHistoryCursor(cursor);
      if (cursor !== undefined && !before) {
        throw AppError.validation([{ pointer: "/cursor", detail: "is not a cursor this service issued" }]);
      }
      if (!(await stats.totals(tenantId, playerId))) {
        throw new AppError("NOT_FOUND", `Player ${playerId} is not known`);
      }
      const rows = await stats.history(tenantId, playerId, {
        ...(gameId === undefined ? {} : { gameId }),
        ...(season === undefined ? {} : { season: seasonNumber(season)! }),
        ...(before === undefined ? {} : { before }),
        limit: limit + 1,
      });
      return historyPage(playerId, rows, limit);
    },
  } satisfies SomeOperationHandlers;
}

/** `?seasons=S1,S2` as a list; undefined when absent. */
function seasonList(value: unknown): string[] | undefined {
  if (typeof value !== "string") return undefined;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** One page of history: `limit` rows, and a cursor when the store found one more. */
function historyPage(playerId: string, rows: readonly HistoryRow[], limit: number): PlayerHistory {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    playerId,
    results: page.map((r) => ({
      matchId: r.matchId,
      gameId: r.gameId,
      mode: r.mode ?? "1v1",
      season: seasonName(r.season),
      completedAt: r.completedAt.toISOString(),
      teamRank: r.teamRank,
      outcome: r.outcome,
      score: r.score,
      predictedWinChance: r.predictedWin,
      before: standing(r.muBefore, r.sigmaBefore, r.pointsBefore),
      after: standing(r.muAfter, r.sigmaAfter, r.pointsAfter),
    })),
    nextCursor: rows.length > limit && last ? encodeHistoryCursor(last) : null,
  };
}

function standing(mu: number, sigma: number, rankingPoints: number) {
  return {
    rating: displayRating({ mu, sigma }),
    ratingUncertainty: displayUncertainty({ mu, sigma }),
    rankingPoints,
  };
}
