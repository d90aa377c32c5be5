import type { CompleteMatchRequest } from "@arena/client";

/** Each team's player ids, in the match's team order. */
export type Roster = string[][];

/**
 * A random result in which stronger teams tend to win: each team's performance is its mean hidden
 * skill plus noise, ranks follow performance (0 = winner, each rank once), and every player
 * scores around its team's performance. The teams are reported as the match formed them, in the
 * same order: the platform refuses a result that moves a player to another team.
 */
export function randomResult(
  roster: Roster,
  skillOf: (playerId: string) => number,
  server: string,
  gameLengthSeconds: number,
): CompleteMatchRequest {
  const performance = roster.map(
    (players) =>
      players.reduce((sum, id) => sum + skillOf(id), 0) / Math.max(1, players.length) +
      (Math.random() - 0.5) * 600,
  );
  const order = roster.map((_, i) => i).sort((a, b) => performance[b]! - performance[a]!);
  const rankOf = new Map(order.map((team, rank) => [team, rank]));
  return {
    server,
    gameLength: gameLengthSeconds,
    teams: roster.map((players, team) => {
      const rank = rankOf.get(team)!;
      return {
        rank,
        players: players.map((playerId) => ({
          playerId,
          score: Math.max(0, Math.round((roster.length - rank) * 10 + (Math.random() - 0.5) * 8)),
        })),
      };
    }),
  };
}
