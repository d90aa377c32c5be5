/** A waiting player who could take a dropped seat. */
export interface BackfillCandidate {
  playerId: string;
  rating: number;
  joinedAt: Date;
}

/**
 * The rating a replacement should have to restore team balance: the one that brings the seat's
 * team's rating sum to the mean sum of the other teams. With one team, the mean rating of the
 * players still in it (a solo or cooperative mode has no balance to restore, only a level).
 * `teams` hold the ratings of the players still in each team, the dropped one left out.
 */
export function backfillTarget(teams: readonly (readonly number[])[], team: number): number {
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const own = teams[team] ?? [];
  const others = teams.filter((_, t) => t !== team);
  if (others.length === 0) return own.length > 0 ? sum(own) / own.length : 1500;
  return others.reduce((a, t) => a + sum(t), 0) / others.length - sum(own);
}

/**
 * The candidate whose rating is nearest the target; among equals the one waiting longest, then
 * the smallest id, so the choice is deterministic.
 */
export function chooseReplacement(
  target: number,
  candidates: readonly BackfillCandidate[],
): BackfillCandidate | undefined {
  let best: BackfillCandidate | undefined;
  let bestGap = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const gap = Math.abs(c.rating - target);
    if (
      gap < bestGap ||
      (gap === bestGap &&
        best !== undefined &&
        (c.joinedAt.getTime() < best.joinedAt.getTime() ||
          (c.joinedAt.getTime() === best.joinedAt.getTime() && c.playerId < best.playerId)))
    ) {
      best = c;
      bestGap = gap;
    }
  }
  return best;
}
