import { validateSubmitPlayersRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { type Response, Router } from "express";
import { callerOf } from "../access/service-auth.js";
import { gameIdParam, requireGame } from "../games/game-routes.js";
import type { GameStore } from "../games/game-store.js";
import { wantsRepresentation } from "./queue-rules.js";
import type { QueueStore } from "./queue-store.js";

/** A path's player id: the same bounds as in bodies (1-256 characters). */
export function playerIdParam(value: string | undefined): string {
  if (!value || value.length > 256)
    throw AppError.validation([{ pointer: "/playerId", detail: "must be 1-256 characters" }]);
  return value;
}

/**
 * Idem's 204 operations: no body, unless the client asked for one with
 * `Prefer: return=representation` (RFC 7240), which is then answered with `status` and marked
 * applied.
 */
export function answerPreferring(
  req: { get(name: string): string | undefined },
  res: Response,
  status: number,
  body: unknown,
) {
  if (wantsRepresentation(req.get("prefer"))) {
    res.setHeader("Preference-Applied", "return=representation");
    res.status(status).json(body);
  } else {
    res.status(204).end();
  }
}

export function queueRoutes(deps: { games: GameStore; queue: QueueStore }): Router {
  const { games, queue } = deps;
  const router = Router();
  router.post("/games/:gameId/players", async (req, res) => {
    const { tenantId } = callerOf(res);
    const game = await requireGame(games, tenantId, gameIdParam(req.params.gameId));
    const body = validateOrThrow(validateSubmitPlayersRequest, requireJsonBody(req));
    const players = await queue.submit(tenantId, game, body);
    answerPreferring(req, res, 201, { players });
  });
  router.get("/games/:gameId/players", async (req, res) => {
    const { tenantId } = callerOf(res);
    const game = await requireGame(games, tenantId, gameIdParam(req.params.gameId));
    res.json(await queue.list(tenantId, game.gameId));
  });
  router.delete("/games/:gameId/players/:playerId", async (req, res) => {
    const { tenantId } = callerOf(res);
    const gameId = gameIdParam(req.params.gameId);
    const playerId = playerIdParam(req.params.playerId);
    const force = req.query.force;
    if (force !== undefined && force !== "true" && force !== "false") {
      throw AppError.validation([{ pointer: "/force", detail: "must be true or false" }]);
    }
    await requireGame(games, tenantId, gameId);
    const removed = await queue.remove(tenantId, gameId, playerId, force === "true");
    answerPreferring(req, res, 200, { gameId, ...removed });
  });
  router.delete("/games/:gameId/queue", async (req, res) => {
    const { tenantId } = callerOf(res);
    const game = await requireGame(games, tenantId, gameIdParam(req.params.gameId));
    res.json(await queue.clear(tenantId, game.gameId));
  });
  return router;
}
