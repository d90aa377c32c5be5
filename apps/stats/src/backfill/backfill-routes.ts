import { validateBackfillRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { callerOf } from "../access/service-auth.js";
import { gameIdParam, requireGame } from "../games/game-routes.js";
import type { GameStore } from "../games/game-store.js";
import { matchIdParam } from "../matches/match-routes.js";
import type { BackfillStore } from "./backfill-store.js";

function requestIdParam(value: string | undefined): string {
  if (!value || value.length > 256) {
    throw AppError.validation([{ pointer: "/backfillingRequestId", detail: "must be 1-256 characters" }]);
  }
  return value;
}

export function backfillRoutes(deps: { games: GameStore; backfill: BackfillStore }): Router {
  const { games, backfill } = deps;
  const router = Router();
  router.post("/games/:gameId/matches/:matchId/backfill", async (req, res) => {
    const { tenantId } = callerOf(res);
    const game = await requireGame(games, tenantId, gameIdParam(req.params.gameId));
    const matchId = matchIdParam(req.params.matchId);
    const body = validateOrThrow(validateBackfillRequest, requireJsonBody(req));
    const backfillingRequestId = await backfill.request(tenantId, game, matchId, body);
    res.status(201).json({ backfillingRequestId });
  });
  router.get("/games/:gameId/matches/:matchId/backfill/:requestId", async (req, res) => {
    const { tenantId } = callerOf(res);
    const gameId = gameIdParam(req.params.gameId);
    res.json(
      await backfill.get(
        tenantId,
        gameId,
        matchIdParam(req.params.matchId),
        requestIdParam(req.params.requestId),
      ),
    );
  });
  router.delete("/games/:gameId/matches/:matchId/backfill/:requestId", async (req, res) => {
    const { tenantId } = callerOf(res);
    const gameId = gameIdParam(req.params.gameId);
    res.json(
      await backfill.cancel(
        tenantId,
        gameId,
        matchIdParam(req.params.matchId),
        requestIdParam(req.params.requestId),
      ),
    );
  });
  return router;
}
