import {
  type MessagePayload,
  type ModeStats,
  type PlayerStats,
  type RestPlayerStats,
  toRestPlayerStats,
} from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { GameStore } from "../games/game-store.js";
import type { LeaderboardStore } from "../leaderboards/leaderboard-store.js";
import { displayRating, displayUncertainty } from "../ratings/display-scale.js";
import { seasonName, selectStatsSeasons } from "../seasons/season-rules.js";
import type { SeasonStore } from "../seasons/season-store.js";
import type { PlayerStatsStore } from "./player-stats-store.js";

export type GetPlayerStatsPayload = MessagePayload<"getPlayerStats">;

export interface PlayerStatsDeps {
  stats: PlayerStatsStore;
  games: GameStore;
  seasons: SeasonStore;
  leaderboards: LeaderboardStore;
}

/**
 * The `getPlayerStats` action, written once: the WebSocket answer (through the gateway's internal
 * route) and `GET /players/{playerId}` (its REST shape, without ranks) both come from here.
 *
 * Rules (the hosted API's, docs/api.md): seasons omitted → the current and the previous one (only S1 while S1 is
 * current); more than 5 → 400; a season that has not started → 404; an unknown player → 404.
 * A season lists the games the player played in it, each with its leaderboard rank.
 */
export class PlayerStatsService {
  constructor(private readonly deps: PlayerStatsDeps) {}

  async getPlayerStats(tenantId: string, payload: GetPlayerStatsPayload): Promise<PlayerStats> {
    return this.build(tenantId, payload.playerId, payload.seasons, true);
  }

  async getRestPlayerStats(
    tenantId: string,
    playerId: string,
    seasons?: readonly string[],
  ): Promise<RestPlayerStats> {
    return toRestPlayerStats(await this.build(tenantId, playerId, seasons, false));
  }

  private async build(
    tenantId: string,
    playerId: string,
    requested: readonly string[] | undefined,
    withRanks: boolean,
  ): Promise<PlayerStats> {
    const current = (await this.deps.seasons.current(tenantId)).number;
    const selection = selectStatsSeasons(requested, current);
    if (!selection.ok) throw AppError.validation([{ pointer: "/seasons", detail: selection.detail }]);
    const future = selection.seasons.find((s) => s > current);
    if (future !== undefined) throw new AppError("NOT_FOUND", `Season ${seasonName(future)} has not started`);
    const totals = await this.deps.stats.totals(tenantId, playerId);
    if (!totals) throw new AppError("NOT_FOUND", `Player ${playerId} is not known`);

    const rows = await this.deps.stats.rows(tenantId, playerId, selection.seasons);
    const modes = await this.deps.games.modes(tenantId, [...new Set(rows.map((r) => r.gameId))]);
    const ranks = new Map<string, number | undefined>();
    if (withRanks) {
      await Promise.all(
        rows.map(async (r) => {
          const [rank] = await this.deps.leaderboards.ranks(
            { tenantId, gameId: r.gameId, season: r.season },
            [playerId],
          );
          ranks.set(`${r.gameId}\u0000${r.season}`, rank);
        }),
      );
    }
    return {
      playerId,
      totalMatchesPlayed: totals.totalMatches,
      totalWins: totals.totalWins,
      totalLosses: totals.totalLosses,
      seasons: selection.seasons.map((season) => {
        const inSeason = rows.filter((r) => r.season === season);
        const stats: ModeStats[] = inSeason.map((r) => ({
          mode: modes.get(r.gameId) ?? "1v1",
          gameId: r.gameId,
          matchesPlayed: r.matches,
          wins: r.wins,
          losses: r.losses,
          rating: displayRating(r),
          ratingUncertainty: displayUncertainty(r),
          rankingPoints: r.rankingPoints,
          // A row exists only after a match, so the board has the player (after a rebuild at worst).
          rank: ranks.get(`${r.gameId}\u0000${r.season}`) ?? 0,
          winRatio: r.matches === 0 ? 0 : r.wins / r.matches,
        }));
        return {
          season: seasonName(season),
          isCurrentSeason: season === current,
          seasonMatchesPlayed: inSeason.reduce((n, r) => n + r.matches, 0),
          seasonWins: inSeason.reduce((n, r) => n + r.wins, 0),
          seasonLosses: inSeason.reduce((n, r) => n + r.losses, 0),
          stats,
        };
      }),
    };
  }
}
