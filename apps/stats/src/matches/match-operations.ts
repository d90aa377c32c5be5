import type { CompleteMatchRequest, ConfirmMatchRequest, FailMatchRequest } from "@arena/contracts";
import { requireGameExists } from "../games/game-operations.js";
import type { GameStore } from "../games/game-store.js";
import type { OperationCall, SomeOperationHandlers } from "../http/operation-routes.js";
import type { MatchCompletion } from "./match-completion.js";
import type { MatchLifecycle } from "./match-lifecycle.js";

export interface MatchOperationDeps {
  games: GameStore;
  lifecycle: MatchLifecycle;
  completion: MatchCompletion;
}

export function matchOperations({ games, lifecycle, completion }: MatchOperationDeps) {
  /** The tenant and game of a call, once the game is known to exist. */
  const scope = async ({ caller, params }: OperationCall<"gameId">) => {
    await requireGameExists(games, caller.tenantId, params.gameId);
    return [caller.tenantId, params.gameId] as const;
  };
  return {
    getMatches: async (call) => lifecycle.fetchUndelivered(...(await scope(call))),
    getMatch: async (call) => lifecycle.get(...(await scope(call)), call.params.matchId),
    acknowledgeMatch: async (call) => {
      await lifecycle.acknowledge(...(await scope(call)), call.params.matchId);
    },
    confirmMatch: async (call) => {
      await lifecycle.confirm(...(await scope(call)), call.params.matchId, call.body as ConfirmMatchRequest);
    },
    failMatch: async (call) =>
      lifecycle.fail(...(await scope(call)), call.params.matchId, call.body as FailMatchRequest),
    completeMatch: async ({ caller, params, body }) => {
      const { answer } = await completion.complete(
        caller.tenantId,
        params.gameId,
        params.matchId,
        body as CompleteMatchRequest,
      );
      return answer;
    },
    // The gateway tells us a WebSocket connection closed: what it never acknowledged goes to another.
    connectionClosed: async ({ caller, params }) => {
      await lifecycle.connectionClosed(caller.tenantId, params.connectionId);
    },
  } satisfies SomeOperationHandlers;
}
