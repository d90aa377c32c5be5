import {
  type LeaderboardResponse,
  type LeaderboardVariant,
  leaderboardVariant,
  validateLeaderboardRequest,
} from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { callerOf } from "../access/service-auth.js";
import { gameIdParam, requireGameExists } from "../games/game-routes.js";
import type { GameStore } from "../games/game-store.js";
import { seasonName, seasonNumber } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import type { LeaderboardStore, RankedEntry } from "./leaderboard-store.js";

export interface LeaderboardRouteDeps {
  games: GameStore;
  seasons: SeasonStore;
  leaderboards: LeaderboardStore;
  reads?: { inc(labels: { variant: LeaderboardVariant }): void };
}

export function leaderboardRoutes(deps: LeaderboardRouteDeps): Router {
  const router = Router();
  router.post("/games/:gameId/leaderboard", async (req, res) => {
    const { tenantId } = callerOf(res);
    const gameId = gameIdParam(req.params.gameId);
    const body = validateOrThrow(validateLeaderboardRequest, requireJsonBody(req));
    await requireGameExists(deps.games, tenantId, gameId);
    const current = (await deps.seasons.current(tenantId)).number;
    const season = body.season === undefined ? current : seasonNumber(body.season)!;
    if (season > current) throw new AppError("NOT_FOUND", `Season ${body.season} has not started`);
    const ref = { tenantId, gameId, season };
    const variant = leaderboardVariant(body);
    deps.reads?.inc({ variant });
    let entries: RankedEntry[];
    if (variant === "aroundPlayer") {
      const around = await deps.leaderboards.around(ref, body.playerId!, body.count);
      if (!around) {
        throw new AppError(
          "NOT_FOUND",
          `Player ${body.playerId} has no entry in ${seasonName(season)} of ${gameId}`,
        );
      }
      entries = around;
    } else {
      entries = await deps.leaderboards.range(ref, (body.fromRank ?? 1) - 1, body.count);
    }
    const answer: LeaderboardResponse = {
      leaderboard: entries.map((e) => ({ playerId: e.playerId, rank: e.rank, ranking_points: e.points })),
      season: seasonName(season),
    };
    res.json(answer);
  });
  return router;
}
