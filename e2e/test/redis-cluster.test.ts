import { validateGetPlayerStatsResponseMessage, validateMatchSuggestionMessage } from "@arena/contracts";
import { redisKeys } from "@arena/redis";
import { startTestCluster, type TestCluster } from "@arena/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { type Delivered, newTenant, result, SocketClient, teamsOf } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";

/**
 * The reference flow with stats and the gateway on a Redis Cluster (3 masters, 3 replicas of
 * Debian's redis-server, REDIS_CLUSTER_NODES): login throttle, tenant rate limit, the push
 * fan-out's sharded pub/sub, the matchmaking lease and the leaderboard all run on the cluster, and
 * a planned failover of the board's master in the middle changes nothing the game server sees.
 */
let cluster: TestCluster;
let platform: Platform;
beforeAll(async () => {
  cluster = await startTestCluster();
  platform = await startPlatform({ matchmakingIntervalMs: 200, redisClusterNodes: cluster.seeds });
});
afterAll(async () => {
  await platform?.close();
  await cluster?.stop();
});

const game = { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1", "us-1"], targetWaitingTime: 1 };

describe("the platform on a Redis Cluster", () => {
  it("logs in, subscribes, queues, gets pushes, confirms, completes and reads the board, across a failover", async () => {
    const { rest, token, tenantId } = await newTenant(platform);
    expect((await rest.call("PUT", "/games/duel", game)).status).toBe(200);
    const socket = await SocketClient.connect(platform.gateway.url, token);
    try {
      expect((await socket.send("subscribe", { gameIds: ["duel"] })).error).toBeUndefined();
      const ids = Array.from({ length: 8 }, (_, i) => `cl-${i}`);
      const added = await socket.send("addPlayer", {
        gameId: "duel",
        players: ids.map((playerId) => ({ playerId })),
      });
      expect(added.error).toBeUndefined();
      const pushes = await socket.pushesOf("matchSuggestion", 2);
      for (const p of pushes) expect(validateMatchSuggestionMessage(p)).toBe(true);
      const matches = pushes.map((p) => p.payload.match as Delivered);

      // The master holding this game's keys hands over to its replica (CLUSTER FAILOVER).
      const boardKey = redisKeys(platform.redisKeyPrefix).game(tenantId, "duel", "board", "S1");
      await cluster.failover(await cluster.replicaOf(await cluster.masterOf(boardKey)));
      await cluster.waitUntilHealthy();

      for (const match of matches) {
        await socket.send("matchSuggestionDelivery", { gameId: "duel", matchId: match.id });
        const confirmed = await socket.send("updateMatchConfirmed", { gameId: "duel", matchId: match.id });
        expect(confirmed.error).toBeUndefined();
        const completed = await socket.send("updateMatchCompleted", {
          gameId: "duel",
          matchId: match.id,
          ...result(teamsOf(match)),
        });
        expect(completed.error).toBeUndefined();
      }
      const winners = matches.flatMap((m) => teamsOf(m)[0]!);
      const stats = await socket.send("getPlayerStats", { playerId: winners[0] });
      expect(validateGetPlayerStatsResponseMessage(stats)).toBe(true);
      const board = await rest.call("POST", "/games/duel/leaderboard", { count: 10 });
      expect(board.status).toBe(200);
      expect(board.body.leaderboard).toHaveLength(8);
      expect(
        new Set(board.body.leaderboard.slice(0, 4).map((e: { playerId: string }) => e.playerId)),
      ).toEqual(new Set(winners));
    } finally {
      await socket.close();
    }
  });
});
