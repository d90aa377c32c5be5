import pg from "pg";

/**
 * Seeding for the stats benchmark, done inside PostgreSQL (INSERT … SELECT generate_series): a
 * million rows without sending them over the wire. Values are spread deterministically so every
 * run sees the same boards.
 */
/** `seededMatchId` in SQL, for `$2` the prefix and `j` the match number. */
const SEEDED_MATCH_ID_SQL = `lpad(to_hex(ascii($2)), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(j), 12, '0')`;

export class StatsSeeder {
  private constructor(private readonly client: pg.Client) {}

  static async connect(databaseUrl: string): Promise<StatsSeeder> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return new StatsSeeder(client);
  }

  async reset(): Promise<void> {
    await this.client.query(
      "TRUNCATE games, seasons, players, player_stats, matches, match_players, match_results, leaderboard_outbox",
    );
  }

  /**
   * `size` players on one board: points spread over 0 … 19,999 (many ties), each reached at its
   * own second of 2026. Players `p1` … `p<size>` (shared between boards).
   */
  async board(tenantId: string, gameId: string, size: number): Promise<void> {
    await this.client.query(
      `INSERT INTO players (tenant_id, player_id, seq)
       SELECT $1, 'p' || i, 1 FROM generate_series(1, $2::int) AS i ON CONFLICT DO NOTHING`,
      [tenantId, size],
    );
    await this.client.query(
      `INSERT INTO player_stats (tenant_id, game_id, season, player_id, mu, sigma, ranking_points,
              points_changed_at, wins, losses, draws, matches, board_seq, updated_at)
       SELECT $1, $2, 1, 'p' || i, 25, 8.3333, (i::bigint * 7919) % 20000,
              timestamptz '2026-01-01' + ((i::bigint * 104729) % 31536000) * interval '1 second',
              1, 0, 0, 1, 1, now()
         FROM generate_series(1, $3::int) AS i`,
      [tenantId, gameId, size],
    );
    await this.client.query("ANALYZE player_stats");
  }

  /**
   * `count` matches `<prefix>-<j>` (confirmed unless `status` says otherwise) of `numTeams` teams
   * of `teamSize`, over a pool of players `<prefix>p<n>` large enough that no two matches share a
   * player.
   */
  async matches(
    tenantId: string,
    gameId: string,
    prefix: string,
    count: number,
    numTeams: number,
    teamSize: number,
    status: "confirmed" | "suggested" = "confirmed",
  ) {
    const perMatch = numTeams * teamSize;
    await this.client.query(
      `INSERT INTO matches (tenant_id, match_id, game_id, status, server)
       SELECT $1, ${SEEDED_MATCH_ID_SQL}, $3, $5::"MatchStatus", 'eu-1' FROM generate_series(0, $4::int - 1) AS j`,
      [tenantId, prefix, gameId, count, status],
    );
    await this.client.query(
      `INSERT INTO match_players (tenant_id, match_id, player_id, team)
       SELECT $1, ${SEEDED_MATCH_ID_SQL}, $2 || 'p' || (j * $4::int + m), m / $5::int
         FROM generate_series(0, $3::int - 1) AS j, generate_series(0, $4::int - 1) AS m`,
      [tenantId, prefix, count, perMatch, teamSize],
    );
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/**
 * Seeded match `j` of a prefix, as a UUID (the hosted API takes only UUID match ids): the first
 * character's code, then `j`, so prefixes must differ in their first character.
 */
export function seededMatchId(prefix: string, j: number): string {
  const tag = prefix.charCodeAt(0).toString(16).padStart(8, "0");
  return `${tag}-0000-4000-8000-${j.toString(16).padStart(12, "0")}`;
}

/** The completion body of seeded match `j` (same players as its roster; team 0 wins). */
export function seededCompletion(prefix: string, j: number, numTeams: number, teamSize: number): string {
  const perMatch = numTeams * teamSize;
  const teams = Array.from({ length: numTeams }, (_, t) => ({
    rank: t,
    players: Array.from({ length: teamSize }, (_, i) => ({
      playerId: `${prefix}p${j * perMatch + t * teamSize + i}`,
      score: 10 - t,
    })),
  }));
  return JSON.stringify({ teams });
}
