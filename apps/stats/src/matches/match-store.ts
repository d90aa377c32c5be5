import type { Database } from "../db.js";

export interface NewMatch {
  matchId: string;
  gameId: string;
  server: string;
  matchScore?: number;
  status?: "suggested" | "delivered" | "confirmed";
  teams: ReadonlyArray<ReadonlyArray<{ playerId: string; reference?: string | null }>>;
}

/**
 * Creating matches and their rosters. The hosted queue (issue 11) creates suggestions here; until
 * then tests and the benchmark create confirmed matches directly.
 */
export class MatchStore {
  constructor(private readonly db: Database) {}

  async create(tenantId: string, match: NewMatch): Promise<void> {
    const roster = match.teams.flatMap((team, t) =>
      team.map((p) => ({ tenantId, playerId: p.playerId, team: t, reference: p.reference ?? null })),
    );
    await this.db.match.create({
      data: {
        tenantId,
        matchId: match.matchId,
        gameId: match.gameId,
        server: match.server,
        matchScore: match.matchScore ?? 0,
        status: match.status ?? "confirmed",
        roster: { createMany: { data: roster.map(({ tenantId: _t, ...p }) => p) } },
      },
    });
  }

  /** Many confirmed matches at once (the benchmark's seeding). */
  async createMany(tenantId: string, matches: readonly NewMatch[]): Promise<void> {
    await this.db.$transaction([
      this.db.match.createMany({
        data: matches.map((m) => ({
          tenantId,
          matchId: m.matchId,
          gameId: m.gameId,
          server: m.server,
          matchScore: m.matchScore ?? 0,
          status: m.status ?? "confirmed",
        })),
      }),
      this.db.matchPlayer.createMany({
        data: matches.flatMap((m) =>
          m.teams.flatMap((team, t) =>
            team.map((p) => ({
              tenantId,
              matchId: m.matchId,
              playerId: p.playerId,
              team: t,
              reference: p.reference ?? null,
            })),
          ),
        ),
      }),
    ]);
  }

  /** Marks a roster player as dropped (the backfill flow of issue 11 does this). */
  async dropPlayer(tenantId: string, matchId: string, playerId: string, at: Date): Promise<void> {
    await this.db.matchPlayer.update({
      where: { tenantId_matchId_playerId: { tenantId, matchId, playerId } },
      data: { droppedAt: at },
    });
  }
}
