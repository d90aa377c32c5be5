import type { CompleteMatchRequest, FieldError } from "@arena/contracts";

export interface RosterPlayer {
  playerId: string;
  /** Dropped players may be listed (they are then rated with their team) or left out. */
  dropped: boolean;
}

/**
 * The completion body in one canonical text, to tell a replay (same text: the stored answer
 * again) from a different result (409). Only the fields we use count, keys in a fixed order;
 * team and player order are kept as sent.
 */
export function canonicalCompletion(body: CompleteMatchRequest): string {
  return JSON.stringify({
    server: body.server ?? null,
    gameLength: body.gameLength ?? null,
    teams: body.teams.map((t) => ({ rank: t.rank, players: t.players.map((p) => [p.playerId, p.score]) })),
  });
}

/** A player listed twice in the body: a 400 naming the second place. */
export function duplicatePlayers(body: CompleteMatchRequest): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const [t, team] of body.teams.entries()) {
    for (const [i, p] of team.players.entries()) {
      if (seen.has(p.playerId))
        errors.push({ pointer: `/teams/${t}/players/${i}/playerId`, detail: "is listed twice" });
      seen.add(p.playerId);
    }
  }

  return errors;
}

/**
 * The players must be exactly the match's roster: every player still in it listed, nobody else
 * (a dropped player may be listed or not).
 */
export function rosterErrors(body: CompleteMatchRequest, roster: readonly RosterPlayer[]): FieldError[] {
  const inRoster = new Map(roster.map((p) => [p.playerId, p]));
  const listed = new Set<string>();
  const errors: FieldError[] = [];
  for (const [t, team] of body.teams.entries()) {
    for (const [i, p] of team.players.entries()) {
      listed.add(p.playerId);
      if (!inRoster.has(p.playerId)) {
        errors.push({
          pointer: `/teams/${t}/players/${i}/playerId`,
          detail: "is not in this match's roster",
        });
      }
    }
  }

  const missing = roster.filter((p) => !p.dropped && !listed.has(p.playerId)).map((p) => p.playerId);
  if (missing.length > 0) {
    errors.push({
      pointer: "/teams",
      detail: `must list every player of the match; missing ${missing.join(", ")}`,
    });
  }
  return errors;
}
