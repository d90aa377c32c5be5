import {
  DEFAULT_RATING_CARRY_OVER,
  validateCreateSeasonRequest,
  validateSeasonResetRequest,
} from "@arena/contracts";
import { requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { callerOf, requireAdmin } from "../access/service-auth.js";
import type { SeasonStore } from "./season-store.js";

export function seasonRoutes(seasons: SeasonStore): Router {
  const router = Router();
  router.get("/seasons", async (_req, res) => {
    res.json(await seasons.list(callerOf(res).tenantId));
  });
  router.post("/seasons", async (req, res) => {
    const { tenantId } = requireAdmin(res);
    // An empty body starts the next season now with the default carry-over.
    const body = validateOrThrow(validateCreateSeasonRequest, req.body ?? {});
    const season = await seasons.start(tenantId, {
      ...(body.startsAt === undefined ? {} : { startsAt: new Date(body.startsAt) }),
      ratingCarryOver: body.ratingCarryOver ?? DEFAULT_RATING_CARRY_OVER,
    });
    res.status(201).json(season);
  });
  // Idem's season reset: the same operation, with a carry-over per game in percent.
  router.post("/admin/season/reset", async (req, res) => {
    const { tenantId } = requireAdmin(res);
    const body = validateOrThrow(validateSeasonResetRequest, requireJsonBody(req));
    const carryOverByGame = Object.fromEntries(
      (body.percentages ?? []).map((p) => [p.gameId, p.percentage / 100]),
    );
    const season = await seasons.start(tenantId, {
      ...(body.seasonStart === undefined ? {} : { startsAt: new Date(body.seasonStart) }),
      ratingCarryOver: DEFAULT_RATING_CARRY_OVER,
      carryOverByGame,
      expectedName: body.seasonName,
    });
    res.status(201).json(season);
  });
  return router;
}
