import { SqlStatement, type Tenant } from "../db.js";

/**
 * The SQL of starting and cancelling a season (`SeasonStore.start`, `SeasonStore.cancel`), which
 * run under a lock on the tenant, and of a tenant's first season: every statement named, with its
 * parameters and rows typed.
 */

export interface SeasonSqlRow {
  number: number;
  starts_at: Date;
  rating_carry_over: number | null;
  carry_over_by_game: unknown;
}

/** Starting or cancelling seasons of a tenant (`$1`: `seasons:<tenant>`) is one at a time, until the transaction ends. */
export const LOCK_TENANT_SEASONS = new SqlStatement<[string]>(
  "season_lock_tenant_seasons",
  `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
);

/** S1 exists from the first time a tenant needs a season (`$2`: now). */
export const ENSURE_FIRST = new SqlStatement<[Tenant, Date]>(
  "season_ensure_first",
  `INSERT INTO seasons (tenant_id, number, starts_at) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING`,
);

/** The tenant's latest season, started or scheduled. */
export const LATEST = new SqlStatement<[Tenant], SeasonSqlRow>(
  "season_latest",
  `SELECT number, starts_at, rating_carry_over, carry_over_by_game FROM seasons
    WHERE tenant_id = $1 ORDER BY number DESC LIMIT 1`,
);

/** `$2`: the season's number; `$5`: the per-game carry-over factors as JSON. */
export const INSERT_SEASON = new SqlStatement<[Tenant, number, Date, number, string], SeasonSqlRow>(
  "season_insert",
  `INSERT INTO seasons (tenant_id, number, starts_at, rating_carry_over, carry_over_by_game)
   VALUES ($1, $2, $3, $4, $5::jsonb)
   RETURNING number, starts_at, rating_carry_over, carry_over_by_game`,
);

/** When season `$2` starts, if the tenant has it. */
export const SEASON_START = new SqlStatement<[Tenant, number], { starts_at: Date }>(
  "season_start",
  `SELECT starts_at FROM seasons WHERE tenant_id = $1 AND number = $2`,
);

/** Cancels season `$2` if it has not started by `$3` (a started season keeps its statistics). */
export const DELETE_SCHEDULED = new SqlStatement<[Tenant, number, Date]>(
  "season_delete_scheduled",
  `DELETE FROM seasons WHERE tenant_id = $1 AND number = $2 AND starts_at > $3`,
);
