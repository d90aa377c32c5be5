import {
  validateCompleteMatchRequest,
  validateConfirmMatchRequest,
  validateFailMatchRequest,
} from "@arena/contracts";
import { AppError, optionalJsonBody, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import type { Request } from "express";
import { Router } from "express";
import { callerOf } from "../access/service-auth.js";
import { gameIdParam, requireGameExists } from "../games/game-routes.js";
import type { GameStore } from "../games/game-store.js";
import { answerPreferring } from "../queue/queue-routes.js";
import type { MatchCompletion } from "./match-completion.js";
import type { MatchLifecycle } from "./match-lifecycle.js";

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A path's match id (the matchmaker's UUIDs), or a 400 naming it. */
export function matchIdParam(value: string | undefined): string {
  if (!value || !uuidPattern.test(value))
    throw AppError.validation([{ pointer: "/matchId", detail: "must be a UUID" }]);
  return value.toLowerCase();
}

export function matchRoutes(deps: {
  games: GameStore;
  lifecycle: MatchLifecycle;
  completion: MatchCompletion;
}): Router {
  const { games, lifecycle, completion } = deps;
  const router = Router();
  const scope = async (req: Request<{ gameId: string }>, res: Parameters<typeof callerOf>[0]) => {
    const { tenantId } = callerOf(res);
    const gameId = gameIdParam(req.params.gameId);
    await requireGameExists(games, tenantId, gameId);
    return { tenantId, gameId };
  };

  router.post("/games/:gameId/matches", async (req, res) => {
    const { tenantId, gameId } = await scope(req, res);
    res.json(await lifecycle.fetchUndelivered(tenantId, gameId));
  });
  router.get("/games/:gameId/matches/:matchId", async (req, res) => {
    const { tenantId, gameId } = await scope(req, res);
    res.json(await lifecycle.get(tenantId, gameId, matchIdParam(req.params.matchId)));
  });
  router.post("/games/:gameId/matches/:matchId/delivery", async (req, res) => {
    const { tenantId, gameId } = await scope(req, res);
    await lifecycle.acknowledge(tenantId, gameId, matchIdParam(req.params.matchId));
    res.status(204).end();
  });
  router.post("/games/:gameId/matches/:matchId/statuses/confirmed", async (req, res) => {
    const { tenantId, gameId } = await scope(req, res);
    const matchId = matchIdParam(req.params.matchId);
    const body = validateOrThrow(validateConfirmMatchRequest, optionalJsonBody(req, {}));
    await lifecycle.confirm(tenantId, gameId, matchId, body);
    res.status(204).end();
  });
  router.post("/games/:gameId/matches/:matchId/statuses/failed", async (req, res) => {
    const { tenantId, gameId } = await scope(req, res);
    const matchId = matchIdParam(req.params.matchId);
    const body = validateOrThrow(validateFailMatchRequest, optionalJsonBody(req, {}));
    const answer = await lifecycle.fail(tenantId, gameId, matchId, body);
    answerPreferring(req, res, 200, answer);
  });
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
  // The gateway tells us a WebSocket connection closed: what it never acknowledged goes to another.
  router.post("/internal/connections/:connectionId/closed", async (req, res) => {
    const { tenantId } = callerOf(res);
    const connectionId = String(req.params.connectionId ?? "");
    if (connectionId.length === 0 || connectionId.length > 200) {
      throw AppError.validation([{ pointer: "/connectionId", detail: "must be 1-200 characters" }]);
    }
    await lifecycle.connectionClosed(tenantId, connectionId);
    res.status(204).end();
  });
  return router;
}
