import { DROP_PLAYER } from "../src/backfill/backfill-sql.js";
import type { Database, Queryable } from "../src/db.js";

/**
 * Matches written straight into the database, for tests that need one in a given state without
 * playing it through the queue (the hosted queue creates them in production).
 */
export interface NewMatch {
  matchId: string;
  gameId: string;
  server: string;
  matchScore?: number;
  status?: "suggested" | "delivered" | "confirmed";
  teams: ReadonlyArray<ReadonlyArray<{ playerId: string; reference?: string | null }>>;
}

export async function insertMatch(db: Database, tenantId: string, match: NewMatch): Promise<void> {
  const roster = match.teams.flatMap((team, t) =>
    team.map((p) => ({ playerId: p.playerId, team: t, reference: p.reference ?? null })),
  );
  await db.match.create({
    data: {
      tenantId,
      matchId: match.matchId,
      gameId: match.gameId,
      server: match.server,
      matchScore: match.matchScore ?? 0,
      status: match.status ?? "confirmed",
      roster: { createMany: { data: roster } },
    },
  });
}

/** Marks a roster player as dropped, with the backfill store's own statement. */
export async function dropPlayer(
  pool: Queryable,
  tenantId: string,
  matchId: string,
  playerId: string,
  at: Date,
) {
  await DROP_PLAYER.run(pool, tenantId, matchId, playerId, at);
}
