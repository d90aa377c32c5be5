import { DEFAULT_RATING_CARRY_OVER, type Season, type SeasonList } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import { type Database, inTransaction, type SqlPool } from "../db.js";
import { ReadReplica } from "../read-replica.js";
import { seasonName, seasonNumber, seasonStartError } from "./season-rules.js";
import {
  DELETE_SCHEDULED,
  ENSURE_FIRST,
  INSERT_SEASON,
  LATEST,
  LOCK_TENANT_SEASONS,
  SEASON_START,
  type SeasonSqlRow,
} from "./season-sql.js";

const MAX_CACHED_TENANTS = 10_000;

/** A season's fields as Prisma reads them. */
const SEASON_FIELDS = { number: true, startsAt: true, ratingCarryOver: true, carryOverByGame: true } as const;

export interface SeasonRow {
  number: number;
  startsAt: Date;
  ratingCarryOver: number | null;
  carryOverByGame: Record<string, number>;
}

export interface StartSeason {
  /** When the new season starts; now when omitted. */
  startsAt?: Date;
  ratingCarryOver: number;
  /** Per-game factors (Idem's `percentages` / 100). */
  carryOverByGame?: Record<string, number>;
  /** Idem's reset names the season it starts: it must be the next one. */
  expectedName?: string;
}

/**
 * A tenant's seasons. S1 exists from the tenant's first use; each new season S<N+1> starts at a
 * given time (now by default, at most MAX_SEASON_LEAD_DAYS ahead). The current season is the latest
 * one that has started; at most one season may be scheduled ahead, and it may be cancelled until
 * it starts.
 */
export class SeasonStore {
  /**
   * Current season per tenant, kept for `cacheMs` (every completion and leaderboard read needs
   * it). A season started on this replica is seen at once; one started on another replica within
   * `cacheMs`.
   */
  private readonly cache = new Map<string, { row: SeasonRow; until: number }>();
  /** Reads in flight per tenant: requests that miss the cache together share one read. */
  private readonly reading = new Map<string, Promise<SeasonRow>>();
  /** Bumped when this replica changes a tenant's seasons: a read begun before is not cached. */
  private generation = 0;

  constructor(
    private readonly db: Database,
    /** Starting a season locks the tenant: a transaction on pg. */
    private readonly pool: SqlPool,
    private readonly clock: Clock,
    /** Where `list` reads (the read replica when there is one). */
    private readonly replica = new ReadReplica({ db, pool }),
    private readonly cacheMs = 1_000,
  ) {}

  async current(tenantId: string): Promise<SeasonRow> {
    const now = this.clock.now();
    const cached = this.cache.get(tenantId);
    if (cached && cached.until > now.getTime()) {
      return cached.row;
    }
    const inFlight = this.reading.get(tenantId);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const read = this.readCurrent(tenantId, now).then((row) => {
      if (generation !== this.generation) return row;
      if (this.cache.size >= MAX_CACHED_TENANTS) this.cache.clear();
      this.cache.set(tenantId, { row, until: now.getTime() + this.cacheMs });
      return row;
    });
    this.reading.set(tenantId, read);
    try {
      return await read;
    } finally {
      this.reading.delete(tenantId);
    }
  }

  /** This replica changed the tenant's seasons: its current season is read again. */
  private forget(tenantId: string): void {
    this.generation++;
    this.cache.delete(tenantId);
    this.reading.delete(tenantId);
  }

  private async readCurrent(tenantId: string, now: Date): Promise<SeasonRow> {
    const row = await this.db.season.findFirst({
      where: { tenantId, startsAt: { lte: now } },
      orderBy: { number: "desc" },
      select: SEASON_FIELDS,
    });
    if (row) return toSeasonRow(row);
    await ENSURE_FIRST.run(this.pool, tenantId, now);
    const first = await this.db.season.findFirst({
      where: { tenantId },
      orderBy: { number: "asc" },
      select: SEASON_FIELDS,
    });
    return toSeasonRow(first!);
  }

  async all(tenantId: string): Promise<SeasonRow[]> {
    await ENSURE_FIRST.run(this.pool, tenantId, this.clock.now());
    const rows = await this.db.season.findMany({
      where: { tenantId },
      orderBy: { number: "asc" },
      select: SEASON_FIELDS,
    });
    return rows.map(toSeasonRow);
  }

  /**
   * The season list, from the read replica. A tenant it has no season of yet (its first request,
   * or one the replica has not replayed) gets its S1 made and read on the primary.
   */
  async list(tenantId: string): Promise<SeasonList> {
    const replicated = await this.replica.read(({ db }) =>
      db.season.findMany({ where: { tenantId }, orderBy: { number: "asc" }, select: SEASON_FIELDS }),
    );
    const rows = replicated.length > 0 ? replicated.map(toSeasonRow) : await this.all(tenantId);
    const now = this.clock.now();
    const current = [...rows].reverse().find((r) => r.startsAt <= now) ?? rows[0]!;
    return {
      currentSeason: seasonName(current.number),
      seasons: rows.map((row, i) => toSeason(row, rows[i + 1], current.number, now)),
    };
  }

  /** Starts S<N+1>; one at a time per tenant (an advisory lock on the tenant). */
  async start(tenantId: string, request: StartSeason): Promise<Season> {
    const now = this.clock.now();
    const startsAt = request.startsAt ?? now;
    const pointer = request.expectedName === undefined ? "/startsAt" : "/seasonStart";
    const tooLate = seasonStartError(startsAt, now);
    if (tooLate !== undefined) throw AppError.validation([{ pointer, detail: tooLate }]);
    const row = await inTransaction(this.pool, async (tx) => {
      await LOCK_TENANT_SEASONS.run(tx, `seasons:${tenantId}`);
      await ENSURE_FIRST.run(tx, tenantId, now);
      const last = fromSql((await LATEST.run(tx, tenantId)).rows[0]!);
      const next = last.number + 1;
      if (request.expectedName !== undefined && request.expectedName !== seasonName(next)) {
        throw new AppError(
          "CONFLICT",
          `The next season of this tenant is ${seasonName(next)}, not ${request.expectedName}`,
        );
      }
      if (last.startsAt > now) {
        const name = seasonName(last.number);
        throw new AppError(
          "CONFLICT",
          `${name} is scheduled and has not started yet (DELETE /seasons/${name} cancels it)`,
        );
      }
      if (startsAt < last.startsAt) {
        throw AppError.validation([
          {
            pointer,
            detail: `must not be before ${seasonName(last.number)} started (${last.startsAt.toISOString()})`,
          },
        ]);
      }
      const byGame = JSON.stringify(request.carryOverByGame ?? {});
      const inserted = await INSERT_SEASON.run(tx, tenantId, next, startsAt, request.ratingCarryOver, byGame);
      return fromSql(inserted.rows[0]!);
    });
    this.forget(tenantId);
    const current = row.startsAt <= now ? row.number : row.number - 1;
    return toSeason(row, undefined, current, now);
  }

  /**
   * Cancels a season that has not started, so a wrong schedule can be undone; a season that has
   * started keeps its statistics and boards (409), an unknown one is a 404. Under the same tenant
   * lock as `start`, and decided by this replica's clock: a season starting meanwhile is not lost.
   */
  async cancel(tenantId: string, name: string): Promise<void> {
    const number = seasonNumber(name);
    const now = this.clock.now();
    await inTransaction(this.pool, async (tx) => {
      await LOCK_TENANT_SEASONS.run(tx, `seasons:${tenantId}`);
      await ENSURE_FIRST.run(tx, tenantId, now);
      const season =
        number === undefined ? undefined : (await SEASON_START.run(tx, tenantId, number)).rows[0];
      if (number === undefined || season === undefined) {
        throw new AppError("NOT_FOUND", `This tenant has no season ${name}`);
      }
      if (season.starts_at <= now) {
        throw new AppError(
          "CONFLICT",
          `${name} started at ${season.starts_at.toISOString()}; only a season that has not started can be cancelled`,
        );
      }
      await DELETE_SCHEDULED.run(tx, tenantId, number, now);
    });
    this.forget(tenantId);
  }

  /**
   * The carry-over factors a player's rating in `gameId` goes through from the end of season
   * `after` to the start of season `upTo` (both numbers), oldest first.
   */
  async carryOverFactors(tenantId: string, gameId: string, after: number, upTo: number): Promise<number[]> {
    if (upTo <= after) return [];
    const rows = await this.db.season.findMany({
      where: { tenantId, number: { gt: after, lte: upTo } },
      orderBy: { number: "asc" },
      select: SEASON_FIELDS,
    });
    return rows.map(toSeasonRow).map((s) => factorFor(s, gameId));
  }
}

export function factorFor(season: SeasonRow, gameId: string): number {
  return season.carryOverByGame[gameId] ?? season.ratingCarryOver ?? DEFAULT_RATING_CARRY_OVER;
}

function toSeasonRow(row: Omit<SeasonRow, "carryOverByGame"> & { carryOverByGame: unknown }): SeasonRow {
  return { ...row, carryOverByGame: (row.carryOverByGame ?? {}) as Record<string, number> };
}

function fromSql(row: SeasonSqlRow): SeasonRow {
  return toSeasonRow({
    number: row.number,
    startsAt: row.starts_at,
    ratingCarryOver: row.rating_carry_over,
    carryOverByGame: row.carry_over_by_game,
  });
}

function toSeason(row: SeasonRow, next: SeasonRow | undefined, current: number, now: Date): Season {
  return {
    season: seasonName(row.number),
    startsAt: row.startsAt.toISOString(),
    endsAt: next && next.startsAt <= now ? next.startsAt.toISOString() : null,
    isCurrentSeason: row.number === current,
    ratingCarryOver: row.ratingCarryOver,
  };
}
