import {
  ajv,
  compile,
  DEFAULT_HISTORY_LIMIT,
  MESSAGE_PAYLOAD_SCHEMAS,
  type PlayerHistory,
  PlayerIdField,
  type Validator,
  validatePlayerHistoryQuery,
} from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { callerOf } from "../access/service-auth.js";
import { displayRating, displayUncertainty } from "../ratings/display-scale.js";
import { seasonName, seasonNumber } from "../seasons/season-rules.js";
import { decodeHistoryCursor, encodeHistoryCursor } from "./history-cursor.js";
import type { GetPlayerStatsPayload, PlayerStatsService } from "./player-stats.js";
import type { PlayerStatsStore } from "./player-stats-store.js";

/** The payload schema is registered by `$id` once in the shared ajv; reuse it when it is. */
const validateGetPlayerStatsPayload: Validator<GetPlayerStatsPayload> =
  (ajv.getSchema("GetPlayerStatsPayload") as Validator<GetPlayerStatsPayload> | undefined) ??
  compile<GetPlayerStatsPayload>(MESSAGE_PAYLOAD_SCHEMAS.getPlayerStats);

export function playerIdParam(value: string | undefined): string {
  if (
    value === undefined ||
    value.length < PlayerIdField.minLength ||
    value.length > PlayerIdField.maxLength
  ) {
    throw AppError.validation([{ pointer: "/playerId", detail: "must be 1-256 characters" }]);
  }
  return value;
}

/** `?seasons=S1,S2` (or the parameter repeated), as a list; undefined when absent. */
function seasonsQuery(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(","));
  return parts.map((s) => s.trim()).filter((s) => s !== "");
}

export interface PlayerRouteDeps {
  playerStats: PlayerStatsService;
  stats: PlayerStatsStore;
}

export function playerRoutes(deps: PlayerRouteDeps): Router {
  const router = Router();

  router.get("/players/:playerId", async (req, res) => {
    const { tenantId } = callerOf(res);
    const playerId = playerIdParam(req.params.playerId);
    res.json(await deps.playerStats.getRestPlayerStats(tenantId, playerId, seasonsQuery(req.query.seasons)));
  });

  // The getPlayerStats action for the gateway's WebSocket: body = the action's payload, answer =
  // the response payload (PlayerStats with ranks); errors are problems whose status the gateway
  // turns into the message's error code.
  router.post("/internal/actions/getPlayerStats", async (req, res) => {
    const { tenantId } = callerOf(res);
    const payload = validateOrThrow(validateGetPlayerStatsPayload, requireJsonBody(req));
    res.json(await deps.playerStats.getPlayerStats(tenantId, payload));
  });

  router.get("/players/:playerId/history", async (req, res) => {
    const { tenantId } = callerOf(res);
    const playerId = playerIdParam(req.params.playerId);
    const raw = { ...(req.query as Record<string, unknown>) };
    if (typeof raw.limit === "string" && /^[0-9]{1,6}$/.test(raw.limit)) raw.limit = Number(raw.limit);
    const query = validateOrThrow(validatePlayerHistoryQuery, raw);
    const before = query.cursor === undefined ? undefined : decodeHistoryCursor(query.cursor);
    if (query.cursor !== undefined && !before) {
      throw AppError.validation([{ pointer: "/cursor", detail: "is not a cursor this service issued" }]);
    }
    if (!(await deps.stats.totals(tenantId, playerId))) {
      throw new AppError("NOT_FOUND", `Player ${playerId} is not known`);
    }
    const limit = query.limit ?? DEFAULT_HISTORY_LIMIT;
    const rows = await deps.stats.history(tenantId, playerId, {
      ...(query.gameId === undefined ? {} : { gameId: query.gameId }),
      ...(query.season === undefined ? {} : { season: seasonNumber(query.season)! }),
      ...(before === undefined ? {} : { before }),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const answer: PlayerHistory = {
      playerId,
      results: page.map((r) => ({
        matchId: r.matchId,
        gameId: r.gameId,
        mode: r.mode ?? "1v1",
        season: seasonName(r.season),
        completedAt: r.completedAt.toISOString(),
        teamRank: r.teamRank,
        outcome: r.outcome,
        score: r.score,
        predictedWinChance: r.predictedWin,
        before: {
          rating: displayRating({ mu: r.muBefore, sigma: r.sigmaBefore }),
          ratingUncertainty: displayUncertainty({ mu: r.muBefore, sigma: r.sigmaBefore }),
          rankingPoints: r.pointsBefore,
        },
        after: {
          rating: displayRating({ mu: r.muAfter, sigma: r.sigmaAfter }),
          ratingUncertainty: displayUncertainty({ mu: r.muAfter, sigma: r.sigmaAfter }),
          rankingPoints: r.pointsAfter,
        },
      })),
      nextCursor: rows.length > limit && last ? encodeHistoryCursor(last) : null,
    };
    res.json(answer);
  });
  return router;
}
