import { validateBackfillRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { type Request, type Response, Router } from "express";
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
  // GET reads a backfill request, DELETE cancels it: the same four ids, checked alike.
  const requestRef = (req: Request<{ gameId: string; matchId: string; requestId: string }>, res: Response) =>
    [
      callerOf(res).tenantId,
      gameIdParam(req.params.gameId),
      matchIdParam(req.params.matchId),
      requestIdParam(req.params.requestId),
    ] as const;
  router.get("/games/:gameId/matches/:matchId/backfill/:requestId", async (req, res) => {
    res.json(await backfill.get(...requestRef(req, res)));
  });
  router.delete("/games/:gameId/matches/:matchId/backfill/:requestId", async (req, res) => {
    res.json(await backfill.cancel(...requestRef(req, res)));
  });
  return router;
}
