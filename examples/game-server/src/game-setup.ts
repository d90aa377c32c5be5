import { ArenaApiError, type ArenaClient } from "@arena/client";
import type { GameServerConfig } from "./config.js";

/** The servers the simulated players can play on (each player names none, so it can play on all). */
export const SERVERS = ["eu-1", "us-1"];

/**
 * Makes sure the game exists with this server's mode: `putGame` (create or update) when the user
 * is an admin; a game-server user (role `server`) may not configure games, so it only checks that
 * an admin has created it.
 */
export async function ensureGame(client: ArenaClient, config: GameServerConfig): Promise<void> {
  const { gameId } = config;
  try {
    await client.putGame({
      gameId,
      body: {
        numTeams: config.numTeams,
        numPlayersPerTeam: config.numPlayersPerTeam,
        servers: SERVERS,
        // Quality relaxes to "anything compatible" within 2 s: the simulated players should not wait long.
        targetWaitingTime: 2,
        confirmationTimeout: config.confirmationTimeout,
        backfillTimeout: Math.max(1, Math.ceil((config.playMs + config.backfillWaitMs) / 1000)),
      },
    });
  } catch (err) {
    if (!(err instanceof ArenaApiError && err.status === 403)) throw err;
    // Not an admin: the game must be there already (getGame answers 404 otherwise).
    await client.getGame({ gameId });
  }
}
