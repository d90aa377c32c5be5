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

/**
 * Makes `table` refuse every row of one match (a trigger raising an error on `INSERT` of a new row
 * or `DELETE` of an old one), so whatever statement writes it fails, wherever it runs; answers
 * the undo.
 */
export async function refuseMatchRows(
  client: Queryable,
  table: "match_results" | "queue_players",
  on: "INSERT" | "DELETE",
  matchId: string,
): Promise<() => Promise<void>> {
  const row = on === "INSERT" ? "NEW" : "OLD";
  await client.query({
    text: `
      CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF ${row}.match_id = '${matchId.replace(/'/g, "''")}' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN ${row};
      END $$;
      CREATE TRIGGER refuse_doomed BEFORE ${on} ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_doomed();`,
  });
  return async () => {
    await client.query({
      text: `DROP TRIGGER IF EXISTS refuse_doomed ON ${table}; DROP FUNCTION IF EXISTS refuse_doomed()`,
    });
  };
}
