import type { BackfillRequest } from "@arena/contracts";
import { requireGame } from "../games/game-operations.js";
import type { GameStore } from "../games/game-store.js";
import type { SomeOperationHandlers } from "../http/operation-routes.js";
import type { BackfillStore } from "./backfill-store.js";

export function backfillOperations({ games, backfill }: { games: GameStore; backfill: BackfillStore }) {
  return {
    requestBackfill: async ({ caller, params, body }) => {
      const game = await requireGame(games, caller.tenantId, params.gameId);
      const request = body as BackfillRequest;
      return { backfillingRequestId: await backfill.request(caller.tenantId, game, params.matchId, request) };
    },
    getBackfill: ({ caller, params }) =>
      backfill.get(caller.tenantId, params.gameId, params.matchId, params.backfillingRequestId),
    cancelBackfill: ({ caller, params }) =>
      backfill.cancel(caller.tenantId, params.gameId, params.matchId, params.backfillingRequestId),
  } satisfies SomeOperationHandlers;
}
