import { validateCompleteMatchRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { callerOf } from "../access/service-auth.js";
import { gameIdParam } from "../games/game-routes.js";
import type { MatchCompletion } from "./match-completion.js";

export function matchRoutes(completion: MatchCompletion): Router {
  const router = Router();
  router.post("/games/:gameId/matches/:matchId/statuses/completed", async (req, res) => {
    const { tenantId } = callerOf(res);
    const gameId = gameIdParam(req.params.gameId);
    const matchId = req.params.matchId;
    if (!matchId || matchId.length > 128) {
      throw AppError.validation([{ pointer: "/matchId", detail: "must be 1-128 characters" }]);
    }
    const body = validateOrThrow(validateCompleteMatchRequest, requireJsonBody(req));
    const { answer } = await completion.complete(tenantId, gameId, matchId, body);
    res.json(answer);
  });
  return router;
}
