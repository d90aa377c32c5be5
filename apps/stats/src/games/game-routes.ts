import { GAME_ID_PATTERN, validateGameConfigRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { callerOf, requireAdmin } from "../access/service-auth.js";
import type { GameStore } from "./game-store.js";

const gameIdPattern = new RegExp(GAME_ID_PATTERN);

/** The game id of a path, or a 400 naming it. */
export function gameIdParam(value: string | undefined): string {
  if (value === undefined || !gameIdPattern.test(value)) {
    throw AppError.validation([
      {
        pointer: "/gameId",
        detail: "must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit",
      },
    ]);
  }
  return value;
}

const gameNotFound = (gameId: string) => new AppError("NOT_FOUND", `Game ${gameId} is not configured`);

/** The game, or a 404: statistics and leaderboards exist only for configured games. */
export async function requireGame(games: GameStore, tenantId: string, gameId: string) {
  const game = await games.get(tenantId, gameId);
  if (!game) throw gameNotFound(gameId);
  return game;
}

/** A 404 unless the game is configured (cached: for hot paths). */
export async function requireGameExists(games: GameStore, tenantId: string, gameId: string): Promise<void> {
  if (!(await games.exists(tenantId, gameId))) throw gameNotFound(gameId);
}

export function gameRoutes(games: GameStore): Router {
  const router = Router();
  router.put("/games/:gameId", async (req, res) => {
    const { tenantId } = requireAdmin(res);
    const gameId = gameIdParam(req.params.gameId);
    const body = validateOrThrow(validateGameConfigRequest, requireJsonBody(req));
    res.json(await games.put(tenantId, gameId, body));
  });
  router.get("/games/:gameId", async (req, res) => {
    const { tenantId } = callerOf(res);
    res.json(await requireGame(games, tenantId, gameIdParam(req.params.gameId)));
  });
  return router;
}
