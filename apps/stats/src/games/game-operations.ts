import type { GameConfigRequest } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { SomeOperationHandlers } from "../http/operation-routes.js";
import type { GameStore } from "./game-store.js";

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

export function gameOperations(games: GameStore) {
  return {
    putGame: ({ caller, params, body }) =>
      games.put(caller.tenantId, params.gameId, body as GameConfigRequest),
    getGame: ({ caller, params }) => requireGame(games, caller.tenantId, params.gameId),
  } satisfies SomeOperationHandlers;
}
