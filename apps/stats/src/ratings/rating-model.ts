import { type Options as OpenSkillOptions, predictWin, type Rating, rate } from "openskill";

/**
 * The rating model: openskill 5.0.1, Plackett-Luce (its default model), with every default pinned
 * here so a library upgrade cannot move ratings silently. The values are openskill's own defaults.
 */
export const RATING_MODEL = Object.freeze({
  /** Prior mean skill of a new player. */
  mu: 25,
  /** Prior uncertainty of a new player (mu / 3). */
  sigma: 25 / 3,
  /** Performance variance per game (sigma / 2). */
  beta: 25 / 6,
  /** Uncertainty added before every update, so ratings never freeze (mu / 300). */
  tau: 25 / 300,
  /** Floor of the sigma shrink factor (numerical safety). */
  kappa: 0.0001,
  /**
   * Never let an update raise sigma above its value before the match. Without it, the tau added
   * before each update can raise sigma more than the win raises mu, so a strong player who wins
   * loses displayed rating (mu − 3σ): measured with 5.0.1, mu 40 σ 1 beating mu 20 σ 1 goes
   * from 37 to 36.996.
   */
  limitSigma: true,
});

const options: OpenSkillOptions = {
  mu: RATING_MODEL.mu,
  sigma: RATING_MODEL.sigma,
  beta: RATING_MODEL.beta,
  tau: RATING_MODEL.tau,
  kappa: RATING_MODEL.kappa,
  limitSigma: RATING_MODEL.limitSigma,
};

export type { Rating };

export const DEFAULT_RATING: Readonly<Rating> = Object.freeze({
  mu: RATING_MODEL.mu,
  sigma: RATING_MODEL.sigma,
});

export type Outcome = "win" | "loss" | "draw";

export interface RatedTeam {
  /** 0 is the best place; equal ranks are a tie. */
  rank: number;
  players: readonly Rating[];
}

export interface TeamResult {
  /** The team's win chance before the match (openskill predictWin; the teams' chances sum to 1). */
  predictedWin: number;
  outcome: Outcome;
  /** Share of the other teams that finished strictly ahead of this one: 0 for the best place. */
  placeBehind: number;
  players: Rating[];
}

/**
 * Who won: a team alone at the best rank wins; teams sharing the best rank draw; every other team
 * loses. (A 4-team match ranked [0, 1, 1, 2] has one winner and three losers.)
 */
export function outcomes(ranks: readonly number[]): Outcome[] {
  const best = Math.min(...ranks);
  const atBest = ranks.filter((r) => r === best).length;
  return ranks.map((r) => (r !== best ? "loss" : atBest === 1 ? "win" : "draw"));
}

/**
 * Rates one match. Ranks decide the outcome, never scores (a per-player score is a performance
 * figure kept in the history). Every listed player is rated as a full member of its team: openskill
 * 5.0.1 ignores its `weight` option, so a backfilled player and a dropped player listed with its
 * team are rated like the others.
 */
export function rateMatch(teams: readonly RatedTeam[]): TeamResult[] {
  const ratings = teams.map((t) => t.players.map((p) => ({ mu: p.mu, sigma: p.sigma })));
  const ranks = teams.map((t) => t.rank);
  const chances = teams.length > 1 ? predictWin(ratings, options) : [1];
  const updated = teams.length > 1 ? rate(ratings, { ...options, rank: ranks }) : ratings;
  const kinds = outcomes(ranks);
  return teams.map((team, i) => ({
    predictedWin: chances[i] ?? 0,
    outcome: kinds[i]!,
    placeBehind: teams.length > 1 ? ranks.filter((r) => r < team.rank).length / (teams.length - 1) : 0,
    players: (updated[i] ?? []).map((r) => ({ mu: r.mu, sigma: r.sigma })),
  }));
}
