import { FIRST_SEASON, MAX_SEASON_LEAD_DAYS, MAX_STATS_SEASONS, SEASON_NAME_PATTERN } from "@arena/contracts";
import { DEFAULT_RATING, type Rating } from "../ratings/rating-model.js";

/** The contracts' rule for season names: `S1` to `S2147483647`, PostgreSQL integers. */
const SEASON_NAME = new RegExp(SEASON_NAME_PATTERN);

/** `S3` → 3; undefined for anything that is not a season name. */
export function seasonNumber(name: string): number | undefined {
  return SEASON_NAME.test(name) ? Number(name.slice(1)) : undefined;
}

export function seasonName(n: number): string {
  return `S${n}`;
}

/**
 * Why a requested season start is refused, if it is: later than MAX_SEASON_LEAD_DAYS after now. A
 * scheduled season blocks every other start until it begins, so one set in the year 9999 (the
 * schema takes any date-time) stopped the tenant's seasons for good.
 */
export function seasonStartError(startsAt: Date, now: Date): string | undefined {
  const latest = new Date(now.getTime() + MAX_SEASON_LEAD_DAYS * 86_400_000);
  if (startsAt <= latest) return undefined;
  return `must be at most ${MAX_SEASON_LEAD_DAYS} days after now (${latest.toISOString()})`;
}

/**
 * A season start moves each rating toward the default: the distance from the default is
 * multiplied by the carry-over factor c (1 keeps the rating, 0 resets it), for mu and sigma alike,
 * so a returning player is less certain again:
 *
 *   mu' = mu0 + c × (mu − mu0)      sigma' = sigma0 + c × (sigma − sigma0)
 *
 * Seasons a player skipped apply one after the other: factors [c1, c2] act as c1 × c2.
 */
export function carryOver(rating: Rating, factors: readonly number[]): Rating {
  const c = factors.reduce((acc, f) => acc * Math.min(1, Math.max(0, f)), 1);
  return {
    mu: DEFAULT_RATING.mu + c * (rating.mu - DEFAULT_RATING.mu),
    sigma: DEFAULT_RATING.sigma + c * (rating.sigma - DEFAULT_RATING.sigma),
  };
}

/**
 * The seasons `getPlayerStats` answers when none are asked for: the current and the previous one,
 * newest first; only S1 while S1 is current.
 */
export function defaultStatsSeasons(current: number): number[] {
  return current <= 1 ? [1] : [current, current - 1];
}

export type SeasonSelection = { ok: true; seasons: number[] } | { ok: false; detail: string };

/**
 * The seasons a stats request names: unique, well-formed, at most MAX_STATS_SEASONS, none after the
 * current one. Omitted → the defaults above.
 */
export function selectStatsSeasons(
  requested: readonly string[] | undefined,
  current: number,
): SeasonSelection {
  if (requested === undefined) return { ok: true, seasons: defaultStatsSeasons(current) };
  if (requested.length > MAX_STATS_SEASONS)
    return { ok: false, detail: `at most ${MAX_STATS_SEASONS} seasons may be requested` };
  const seasons: number[] = [];
  for (const name of requested) {
    const n = seasonNumber(name);
    if (n === undefined)
      return { ok: false, detail: `${JSON.stringify(name)} is not a season name (S1, S2, ...)` };
    if (!seasons.includes(n)) seasons.push(n);
  }
  return { ok: true, seasons };
}

export { FIRST_SEASON };
