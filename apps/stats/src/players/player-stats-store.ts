import type { Database, SqlPool } from "../db.js";
import type { BoardEntry, BoardRef, BoardSource } from "../leaderboards/leaderboard-store.js";
import { ReadReplica } from "../read-replica.js";
import { BOARD_ENTRIES, BOARD_PAGE, type BoardRow } from "./player-stats-sql.js";

export interface PlayerTotals {
  totalMatches: number;
  totalWins: number;
  totalLosses: number;
  totalDraws: number;
}

export interface StatsRow {
  gameId: string;
  season: number;
  mu: number;
  sigma: number;
  rankingPoints: number;
  wins: number;
  losses: number;
  draws: number;
  matches: number;
}

export interface HistoryRow {
  matchId: string;
  gameId: string;
  mode: string | null;
  season: number;
  completedAt: Date;
  teamRank: number;
  outcome: "win" | "loss" | "draw";
  score: number;
  predictedWin: number;
  muBefore: number;
  sigmaBefore: number;
  muAfter: number;
  sigmaAfter: number;
  pointsBefore: number;
  pointsAfter: number;
}

export interface HistoryFilter {
  gameId?: string;
  season?: number;
  /** Results strictly older than this position (the previous page's last one). */
  before?: { completedAt: Date; matchId: string };
  limit: number;
}

/**
 * Reads of players' statistics in PostgreSQL (the completion writes them, in matches/). Statistics,
 * totals and history come from the read replica when there is one (a result shows there within
 * the replica's lag); rebuild pages from it once it has caught up; the outbox's entries from the
 * primary.
 */
export class PlayerStatsStore implements BoardSource {
  constructor(
    /** The primary, for the outbox's entries. */
    db: Database,
    /** Rebuild pages go straight to pg: a million rows through Prisma cost seconds of CPU. */
    private readonly pool: SqlPool,
    private readonly replica = new ReadReplica({ db, pool }),
  ) {}

  async totals(tenantId: string, playerId: string): Promise<PlayerTotals | undefined> {
    const row = await this.replica.read(({ db }) =>
      db.player.findUnique({
        where: { tenantId_playerId: { tenantId, playerId } },
        select: { totalMatches: true, totalWins: true, totalLosses: true, totalDraws: true },
      }),
    );
    return row ?? undefined;
  }

  async rows(tenantId: string, playerId: string, seasons: readonly number[]): Promise<StatsRow[]> {
    return this.replica.read(({ db }) =>
      db.playerStat.findMany({
        where: { tenantId, playerId, season: { in: [...seasons] } },
        select: {
          gameId: true,
          season: true,
          mu: true,
          sigma: true,
          rankingPoints: true,
          wins: true,
          losses: true,
          draws: true,
          matches: true,
        },
        orderBy: [{ season: "desc" }, { gameId: "asc" }],
      }),
    );
  }

  /** A page of a board's entries, by playerId (the primary key's order): what a rebuild reads. */
  async page(board: BoardRef, afterPlayerId: string | undefined, limit: number): Promise<BoardEntry[]> {
    const { rows } = await BOARD_PAGE.run(
      (await this.replica.current()).pool,
      board.tenantId,
      board.gameId,
      board.season,
      afterPlayerId ?? "",
      limit,
    );
    return rows.map(toBoardEntry);
  }

  /** The board entries of some players, as PostgreSQL has them now (the outbox re-applies these). */
  async entries(board: BoardRef, playerIds: readonly string[]): Promise<BoardEntry[]> {
    const { rows } = await BOARD_ENTRIES.run(
      this.pool,
      board.tenantId,
      board.gameId,
      board.season,
      playerIds,
    );
    return rows.map(toBoardEntry);
  }

  async history(tenantId: string, playerId: string, filter: HistoryFilter): Promise<HistoryRow[]> {
    return this.replica.read(({ db }) => historyOf(db, tenantId, playerId, filter));
  }
}

/** A page of a player's results, newest first, each with its game's mode. */
async function historyOf(
  db: Database,
  tenantId: string,
  playerId: string,
  filter: HistoryFilter,
): Promise<HistoryRow[]> {
  const rows = await db.matchResult.findMany({
    where: {
      tenantId,
      playerId,
      ...(filter.gameId === undefined ? {} : { gameId: filter.gameId }),
      ...(filter.season === undefined ? {} : { season: filter.season }),
      ...(filter.before === undefined
        ? {}
        : {
            OR: [
              { completedAt: { lt: filter.before.completedAt } },
              { completedAt: filter.before.completedAt, matchId: { lt: filter.before.matchId } },
            ],
          }),
    },
    orderBy: [{ completedAt: "desc" }, { matchId: "desc" }],
    take: filter.limit,
  });
  const modes = await db.game.findMany({
    where: { tenantId, gameId: { in: [...new Set(rows.map((r) => r.gameId))] } },
    select: { gameId: true, mode: true },
  });
  const modeOf = new Map(modes.map((g) => [g.gameId, g.mode]));
  return rows.map((r) => ({ ...r, mode: modeOf.get(r.gameId) ?? null }));
}

function toBoardEntry(row: BoardRow): BoardEntry {
  return {
    playerId: row.player_id,
    points: row.ranking_points,
    reachedAt: row.points_changed_at,
    seq: BigInt(row.board_seq),
  };
}
