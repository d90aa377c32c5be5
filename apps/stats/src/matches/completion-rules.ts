import type { CompleteMatchRequest, FieldError } from "@arena/contracts";

export interface RosterPlayer {
  playerId: string;
  /** The player's team in the match (a backfill's replacement is in its dropped player's team). */
  team: number;
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
 * The body must report the match as it was played: as many teams as the match has, each one
 * exactly one team of the match (in any order), holding every player of that team still in it
 * (a dropped player may be listed with its team or left out) and nobody else. So a player is
 * never reported in another team than the match put it in: a different split of the same players
 * would rate a different match (a 1v1 reported as one team of two gave both a win).
 *
 * The completion's players lock (`LOCK_PLAYERS` in completion-sql.ts) applies this same rule in
 * SQL, so that a refused body locks nobody; test/completion-gate.test.ts checks the two agree.
 */
export function rosterErrors(body: CompleteMatchRequest, roster: readonly RosterPlayer[]): FieldError[] {
  const inRoster = new Map(roster.map((p) => [p.playerId, p]));
  const matchTeams = new Set(roster.map((p) => p.team)).size;
  const errors: FieldError[] = [];
  if (body.teams.length !== matchTeams) {
    errors.push({ pointer: "/teams", detail: `must hold ${matchTeams} teams, one per team of the match` });
  }
  const listed = new Set<string>();
  /** Each match team, by the reported team that holds it. */
  const reportedIn = new Map<number, number>();
  for (const [t, team] of body.teams.entries()) {
    /** The first roster player of this reported team: its match team is this team's. */
    let anchor: { index: number; team: number } | undefined;
    for (const [i, p] of team.players.entries()) {
      listed.add(p.playerId);
      const pointer = `/teams/${t}/players/${i}/playerId`;
      const member = inRoster.get(p.playerId);
      if (member === undefined) {
        errors.push({ pointer, detail: "is not in this match's roster" });
      } else if (anchor === undefined) {
        anchor = { index: i, team: member.team };
        const other = reportedIn.get(member.team);
        if (other === undefined) reportedIn.set(member.team, t);
        else errors.push({ pointer, detail: `is in the same team of this match as /teams/${other}` });
      } else if (member.team !== anchor.team) {
        errors.push({
          pointer,
          detail: `is in another team of this match than /teams/${t}/players/${anchor.index}`,
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
