import type { SubmitPlayersRequest } from "@arena/contracts";
import { requireGame } from "../games/game-operations.js";
import type { GameStore } from "../games/game-store.js";
import type { SomeOperationHandlers } from "../http/operation-routes.js";
import type { QueueStore } from "./queue-store.js";

export function queueOperations({ games, queue }: { games: GameStore; queue: QueueStore }) {
  return {
    addPlayers: async ({ caller, params, body }) => {
      const game = await requireGame(games, caller.tenantId, params.gameId);
      return { players: await queue.submit(caller.tenantId, game, body as SubmitPlayersRequest) };
    },
    getPlayers: async ({ caller, params }) => {
      const game = await requireGame(games, caller.tenantId, params.gameId);
      return queue.list(caller.tenantId, game.gameId);
    },
    removePlayer: async ({ caller, params, query }) => {
      const { tenantId } = caller;
      await requireGame(games, tenantId, params.gameId);
      const removed = await queue.remove(tenantId, params.gameId, params.playerId, query.force === true);
      return { gameId: params.gameId, ...removed };
    },
    clearQueue: async ({ caller, params }) => {
      const game = await requireGame(games, caller.tenantId, params.gameId);
      return queue.clear(caller.tenantId, game.gameId);
    },
  } satisfies SomeOperationHandlers;
}
