import {
  type CreateSeasonRequest,
  DEFAULT_RATING_CARRY_OVER,
  type SeasonResetRequest,
} from "@arena/contracts";
import type { SomeOperationHandlers } from "../http/operation-routes.js";
import type { SeasonStore } from "./season-store.js";

export function seasonOperations(seasons: SeasonStore) {
  return {
    listSeasons: ({ caller }) => seasons.list(caller.tenantId),
    // An empty body starts the next season now with the default carry-over.
    startSeason: ({ caller, body }) => {
      const { startsAt, ratingCarryOver } = body as CreateSeasonRequest;
      return seasons.start(caller.tenantId, {
        ...(startsAt === undefined ? {} : { startsAt: new Date(startsAt) }),
        ratingCarryOver: ratingCarryOver ?? DEFAULT_RATING_CARRY_OVER,
      });
    },
    // Undoes a wrong schedule: only a season that has not started.
    cancelSeason: ({ caller, params }) => seasons.cancel(caller.tenantId, params.season),
    // Idem's season reset: the same operation, with a carry-over per game in percent.
    resetSeason: ({ caller, body }) => {
      const reset = body as SeasonResetRequest;
      return seasons.start(caller.tenantId, {
        ...(reset.seasonStart === undefined ? {} : { startsAt: new Date(reset.seasonStart) }),
        ratingCarryOver: DEFAULT_RATING_CARRY_OVER,
        carryOverByGame: Object.fromEntries(
          (reset.percentages ?? []).map((p) => [p.gameId, p.percentage / 100]),
        ),
        expectedName: reset.seasonName,
      });
    },
  } satisfies SomeOperationHandlers;
}
