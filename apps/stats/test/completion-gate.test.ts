import type { CompleteMatchRequest } from "@arena/contracts";
import { createTestDatabase, type TestDatabase } from "@arena/database/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createPool, prepare, type SqlClient, type SqlPool } from "../src/db.js";
import { type RosterPlayer, rosterErrors } from "../src/matches/completion-rules.js";
import { COMPLETION_STATEMENTS, LOCK_PLAYERS, type LockJob } from "../src/matches/completion-sql.js";
import { migrationsDir, schemaPath } from "../src/schema-version.js";

/**
 * The roster check is written twice: `rosterErrors` answers a refused body with its errors, and
 * the players lock applies the same rule in SQL so that a refused body locks nobody. A completion
 * rated from players the lock skipped, or a refused one that locked players, would be a bug: the
 * two must agree on every roster and body, which this checks on random matches against PostgreSQL.
 */
let database: TestDatabase;
let pool: SqlPool;
let client: SqlClient;

beforeAll(async () => {
  database = await createTestDatabase({ schemaPath, migrationsDir, prefix: "stats_gate" });
  pool = createPool(database.url, 1);
  client = await pool.connect();
  await prepare(client, COMPLETION_STATEMENTS);
});
afterAll(async () => {
  client?.release();
  await pool?.end();
  await database?.drop();
});

type Mutation = "none" | "move" | "stranger" | "merge" | "split" | "swap";

/** A match's roster (teams of `size`, some dropped, maybe a replacement) and a body reporting it. */
const completions = fc
  .record({
    numTeams: fc.integer({ min: 1, max: 3 }),
    size: fc.integer({ min: 1, max: 3 }),
    dropped: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
    replacementTeam: fc.option(fc.integer({ min: 0, max: 2 })),
    listDropped: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
    leaveOut: fc.option(fc.nat(), { freq: 5 }),
    order: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
    mutation: fc.constantFrom<Mutation>("none", "none", "none", "move", "stranger", "merge", "split", "swap"),
    pick: fc.nat(),
  })
  .map((c) => {
    const roster: RosterPlayer[] = [];
    for (let t = 0; t < c.numTeams; t++) {
      for (let i = 0; i < c.size; i++) {
        roster.push({ playerId: `p${t}-${i}`, team: t, dropped: c.dropped[roster.length]! });
      }
    }
    if (c.replacementTeam !== null && c.replacementTeam < c.numTeams) {
      roster.push({ playerId: "sub", team: c.replacementTeam, dropped: false });
    }
    // Every match team as one reported team, in a shuffled order; dropped players listed or not.
    let teams: string[][] = [...Array(c.numTeams).keys()]
      .sort((a, b) => (c.order[a] ?? 0) - (c.order[b] ?? 0))
      .map((t) =>
        roster.filter((p, i) => p.team === t && (!p.dropped || c.listDropped[i])).map((p) => p.playerId),
      );
    const all = teams.flat();
    if (c.leaveOut !== null && all.length > 0) {
      const out = all[c.leaveOut % all.length];
      teams = teams.map((team) => team.filter((p) => p !== out));
    }
    const at = (n: number) => c.pick % Math.max(1, n);
    if (c.mutation === "move" && teams.length > 1) {
      const from = at(teams.length);
      const moved = teams[from]!.pop();
      if (moved !== undefined) teams[(from + 1) % teams.length]!.push(moved);
    } else if (c.mutation === "stranger") {
      teams[at(teams.length)]?.push("stranger");
    } else if (c.mutation === "merge" && teams.length > 1) {
      teams = [[...teams[0]!, ...teams[1]!], ...teams.slice(2)];
    } else if (c.mutation === "split") {
      const t = at(teams.length);
      teams = [...teams.slice(0, t), teams[t]!.slice(0, 1), teams[t]!.slice(1), ...teams.slice(t + 1)];
    } else if (c.mutation === "swap" && teams.length > 1 && teams[0]!.length > 0 && teams[1]!.length > 0) {
      [teams[0]![0], teams[1]![0]] = [teams[1]![0]!, teams[0]![0]!];
    }
    const body: CompleteMatchRequest = {
      teams: teams
        .filter((team) => team.length > 0)
        .map((team, rank) => ({ rank, players: team.map((playerId) => ({ playerId, score: 1 })) })),
    };
    return { roster, body };
  });

/** Which players the lock takes for this body, on a confirmed match of this roster (rolled back). */
async function lockedBy(roster: readonly RosterPlayer[], body: CompleteMatchRequest): Promise<string[]> {
  const job: LockJob = {
    match_id: "m",
    game_id: "g",
    teams: body.teams.length,
    players: body.teams.flatMap((team, t) => team.players.map((p) => ({ id: p.playerId, team: t }))),
  };
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO matches (tenant_id, match_id, game_id, status, server) VALUES ('t', 'm', 'g', 'confirmed', 'eu')`,
    );
    for (const p of roster) {
      await client.query(
        `INSERT INTO match_players (tenant_id, match_id, player_id, team, dropped_at)
         VALUES ('t', 'm', $1, $2, CASE WHEN $3 THEN now() END)`,
        [p.playerId, p.team, p.dropped],
      );
    }
    const res = await client.query<{ player_id: string }>(
      LOCK_PLAYERS.execute("'t'", "now()", client.escapeLiteral(JSON.stringify([job]))),
    );
    return res.rows.map((r) => r.player_id);
  } finally {
    await client.query("ROLLBACK");
  }
}

describe("the players lock and rosterErrors", () => {
  it("agree on every roster and body: all of a body's players locked when it passes, none otherwise", async () => {
    let passed = 0;
    await fc.assert(
      fc.asyncProperty(completions, async ({ roster, body }) => {
        const locked = await lockedBy(roster, body);
        const listed = body.teams.flatMap((t) => t.players.map((p) => p.playerId));
        if (rosterErrors(body, roster).length === 0) {
          passed++;
          expect(locked.sort()).toEqual([...listed].sort());
        } else {
          expect(locked).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
    // The generator reaches both sides.
    expect(passed).toBeGreaterThan(30);
    expect(passed).toBeLessThan(270);
  });
});
