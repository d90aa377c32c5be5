import { RATING_MODEL, type Rating } from "./rating-model.js";

/**
 * The figures a player sees. openskill's conservative estimate (its `ordinal`, mu − 3σ) is 0 for a
 * new player and about 35–45 for the best; the display maps it linearly onto an Elo-like scale:
 *
 *   rating            = 1500 + 40 × (mu − 3σ)     (a new player: 1500)
 *   ratingUncertainty = 40 × σ                    (a new player: 333.33)
 *
 * Both rounded to 2 decimals. A win never lowers `rating`: a winner's mu rises and, with
 * `limitSigma`, its σ never grows, so mu − 3σ rises (the rounding is monotonic too).
 */
export const DISPLAY_SCALE = Object.freeze({ base: 1500, factor: 40, z: 3 });

const round2 = (x: number) => Math.round(x * 100) / 100;

export function displayRating(r: Rating): number {
  return round2(DISPLAY_SCALE.base + DISPLAY_SCALE.factor * (r.mu - DISPLAY_SCALE.z * r.sigma));
}

export function displayUncertainty(r: Rating): number {
  return round2(DISPLAY_SCALE.factor * r.sigma);
}

/** The display rating of a new player. */
export const DEFAULT_DISPLAY_RATING = displayRating({ mu: RATING_MODEL.mu, sigma: RATING_MODEL.sigma });
