import { createTestDatabase, type TestDatabase } from "@arena/database/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createPool, prepare, type SqlClient, type SqlPool } from "../src/db.js";
import {
  COMPLETION_STATEMENTS,
  completionLiterals,
  LOCK_PLAYERS,
  OPEN_MATCH,
  STARTING_POINTS,
  WRITE_RESULT,
} from "../src/matches/completion-sql.js";
import { migrationsDir, schemaPath } from "../src/schema-version.js";

/**
 * A completion's statements stay on indexes when the tables are large, whichever plan PostgreSQL
 * picks for a prepared statement (one for these values, or the generic one it keeps after five
 * runs). A sequential scan there costs every completion time in proportion to the tenant's
 * players: the totals update once scanned all of them (13 ms at 5,000 players).
 */
/** Per tenant: where the totals update's scan was chosen (past ~25,000 the index wins anyway). */
const PLAYERS = 5_000;
const HOT_TABLES = [
  "players",
  "player_stats",
  "matches",
  "match_players",
  "match_results",
  "leaderboard_outbox",
];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function seqScans(node: PlanNode, found: string[] = []): string[] {
  if (node["Node Type"] === "Seq Scan" && HOT_TABLES.includes(node["Relation Name"] ?? "")) {
    found.push(node["Relation Name"]!);
  }
  for (const child of node.Plans ?? []) seqScans(child, found);
  return found;
}

describe("a completion's statements on large tables", () => {
  let database: TestDatabase;
  let pool: SqlPool;
  let client: SqlClient;

  beforeAll(async () => {
    database = await createTestDatabase({ schemaPath, migrationsDir, prefix: "stats_plans" });
    pool = createPool(database.url, 2);
    client = await pool.connect();
    // Two tenants, the bench's shape: many players with a statistics row each, matches of four.
    await client.query(`
      INSERT INTO players (tenant_id, player_id)
        SELECT t, 'p' || i FROM generate_series(1, ${PLAYERS}) i, (VALUES ('t1'), ('t2')) AS x(t);
      INSERT INTO player_stats (tenant_id, game_id, season, player_id, mu, sigma, ranking_points,
                                points_changed_at, board_seq, updated_at)
        SELECT tenant_id, 'g', 1, player_id, 25, 8, 0, now(), 1, now() FROM players;
      INSERT INTO matches (tenant_id, match_id, game_id, status, server)
        SELECT t, 'm' || i, 'g', CASE WHEN i = 1 THEN 'confirmed' ELSE 'completed' END::"MatchStatus", 'eu'
          FROM generate_series(1, ${PLAYERS / 4}) i, (VALUES ('t1'), ('t2')) AS x(t);
      INSERT INTO match_players (tenant_id, match_id, player_id, team)
        SELECT tenant_id, 'm' || ((substr(player_id, 2)::int - 1) / 4 + 1), player_id,
               (substr(player_id, 2)::int - 1) % 2
          FROM players;
      ANALYZE;`);
    await prepare(client, COMPLETION_STATEMENTS);
  }, 120_000);

  afterAll(async () => {
    client?.release();
    await pool?.end();
    await database?.drop();
  });

  const ids = ["p1", "p2", "p3", "p4"];
  const statements = () => {
    const sql = completionLiterals(
      { tenantId: "t1", gameId: "g", matchId: "m1", season: 1, now: new Date() },
      ids,
    );
    const rows = ids.map((id, i) => ({
      player_id: id,
      mu: 25,
      sigma: 8,
      ranking_points: 10,
      points_changed_at: new Date().toISOString(),
      wins: 1,
      losses: 0,
      draws: 0,
      matches: 1,
      rating_delta: 1,
      ranking_delta: 10,
      seq: "2",
      total_matches: 1,
      total_wins: 1,
      total_losses: 0,
      total_draws: 0,
      team_index: i % 2,
      team_rank: i % 2,
      outcome: i % 2 === 0 ? "win" : "loss",
      score: 1,
      predicted_win: 0.5,
      mu_before: 25,
      sigma_before: 8,
      points_before: 0,
    }));
    // m1's roster: p1 and p3 in team 0, p2 and p4 in team 1.
    const lockJob = {
      match_id: "m1",
      game_id: "g",
      teams: 2,
      players: ids.map((id, i) => ({ id, team: i % 2 })),
    };
    return [
      OPEN_MATCH.execute(sql.tenant, sql.match),
      LOCK_PLAYERS.execute(sql.tenant, sql.now, client.escapeLiteral(JSON.stringify([lockJob]))),
      STARTING_POINTS.execute(sql.tenant, sql.game, sql.season, sql.ids, sql.match),
      WRITE_RESULT.execute(
        client.escapeLiteral(JSON.stringify(rows)),
        sql.tenant,
        sql.game,
        sql.season,
        sql.match,
        sql.now,
        client.escapeLiteral("{}"),
        client.escapeLiteral("{}"),
        sql.ids,
      ),
    ];
  };

  it.each(["force_custom_plan", "force_generic_plan"])(
    "scans no hot table sequentially (%s)",
    async (mode) => {
      await client.query(`SET plan_cache_mode = ${mode}`);
      const found: Record<string, string[]> = {};
      for (const statement of statements()) {
        // EXPLAIN without ANALYZE plans the statement and runs nothing.
        const res = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
          `EXPLAIN (FORMAT JSON) ${statement}`,
        );
        found[statement.split("(")[0]!] = seqScans(res.rows[0]!["QUERY PLAN"][0]!.Plan);
      }
      expect(found).toEqual({
        "EXECUTE completion_open_match": [],
        "EXECUTE completion_lock_players": [],
        "EXECUTE completion_starting_points": [],
        "EXECUTE completion_write_result": [],
      });
    },
  );

  it("finds a sequential scan where there is one (the check itself works)", async () => {
    await client.query("SET plan_cache_mode = auto");
    const res = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
      "EXPLAIN (FORMAT JSON) SELECT count(*) FROM players WHERE total_matches = 0",
    );
    expect(seqScans(res.rows[0]!["QUERY PLAN"][0]!.Plan)).toEqual(["players"]);
  });
});
