import { type Figures, formatFigures, GameServer, readConfig } from "@arena/example-game-server";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type pg from "pg";
import { provisionTenant, type TenantCredentials } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";
import { queryStats } from "../src/stats-database.js";

/**
 * The sample game server (examples/game-server, written with @arena/client) against the platform
 * as four processes, for at least 200 matches, with the gateway killed (SIGKILL: no close frame,
 * no drain) and started again when about half are done. No match may be lost or handled twice,
 * and the example must carry on by itself once the gateway is back.
 */

const MATCHES = 200;
const GAME = "sample-2v2";

let platform: Platform;
let user: TenantCredentials;

beforeAll(async () => {
  platform = await startPlatform({
    matchmakingIntervalMs: 200,
    env: {
      gateway: {
        // A killed gateway's subscriptions stay in Redis until their expiry (30 s by default), and
        // suggestions offered to them meanwhile time out unconfirmed and are requeued. Expiring them
        // within a second and a half keeps that window, and the test, short; the path is the same.
        WS_REGISTRATION_TTL_MS: "1500",
        WS_REGISTRATION_REFRESH_MS: "300",
        // About 100 calls and WebSocket messages a second at full speed: past the default 6,000 a minute.
        TENANT_RATE_LIMIT: "100000",
      },
    },
  });
  user = await provisionTenant(platform);
});

afterAll(async () => {
  await platform?.close();
});

/** `done`, or a failure after a minute saying where the run stood (rather than the test's time-out). */
async function bounded(done: Promise<void>, server: GameServer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the run stalled: ${formatFigures(server.figures())}`)),
      60_000,
    );
  });
  try {
    await Promise.race([done, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

const statsQuery = <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
  queryStats<T>(platform, sql, params);

describe("the example game server", () => {
  it("completes 200 matches across a gateway restart: none lost, none twice, and it carries on", async () => {
    const config = readConfig({
      ARENA_URL: platform.gateway.url,
      ARENA_CLIENT_ID: user.clientId,
      ARENA_USERNAME: user.username,
      ARENA_PASSWORD: user.password,
      ARENA_GAME_ID: GAME,
      MATCHES: String(MATCHES),
      PLAY_MS: "300",
      DROP_RATE: "0.15",
      QUEUE_TARGET: "48",
      CAPACITY: "30",
      // A suggestion lost with the killed gateway is requeued after 8 s rather than 60; a match
      // received just before the kill must still be confirmable once the gateway is back.
      CONFIRMATION_TIMEOUT: "8",
      BACKFILL_WAIT_MS: "1500",
      PERSIST_MS: "60000",
    });
    const server = new GameServer(config);
    const startedAt = Date.now();
    let figures: Figures | undefined;
    let atKill: Figures;
    let killedAt: number;
    let restartedAt: number;
    try {
      await server.start();
      await bounded(server.whenCompleted(MATCHES / 2), server);
      atKill = server.figures();
      killedAt = Date.now();
      await platform.gateway.stop("SIGKILL");
      await platform.gateway.restart();
      restartedAt = Date.now();
      await bounded(server.whenCompleted(MATCHES), server);
      figures = await server.stop();
    } finally {
      // A run that failed or stalled: stop at once, without draining, so nothing outlives the test.
      if (figures === undefined) await server.stop(0);
    }
    const durationMs = Date.now() - startedAt;

    const byStatus = Object.fromEntries(
      (
        await statsQuery<{ status: string; n: number }>(
          `SELECT status, count(*)::int AS n FROM matches WHERE tenant_id = $1 AND game_id = $2 GROUP BY status`,
          [user.tenantId, GAME],
        )
      ).map((r) => [r.status, r.n]),
    ) as Record<string, number>;
    const stuck = (byStatus.suggested ?? 0) + (byStatus.delivered ?? 0) + (byStatus.confirmed ?? 0);
    // Lost: received and never completed, or left by the platform in a state that goes nowhere.
    const lost = figures.suggestionsReceived - figures.duplicates - figures.matchesCompleted + stuck;
    // Suggestions offered to the killed gateway's connections (the platform has no way to know
    // they never left it): never received, failed at their confirmation time-out, their players
    // requeued with their join time and matched again.
    const failed = await statsQuery<{ match_id: string; created_at: Date }>(
      `SELECT match_id, created_at FROM matches WHERE tenant_id = $1 AND game_id = $2 AND status = 'failed'`,
      [user.tenantId, GAME],
    );
    // Players of those matches who never played a later match: only the few still waiting at the end.
    const neverPlayed = await statsQuery<{ player_id: string }>(
      `SELECT DISTINCT fp.player_id FROM match_players fp
         JOIN matches f ON f.tenant_id = fp.tenant_id AND f.match_id = fp.match_id
        WHERE f.tenant_id = $1 AND f.game_id = $2 AND f.status = 'failed'
          AND NOT EXISTS (
            SELECT 1 FROM match_players cp
              JOIN matches c ON c.tenant_id = cp.tenant_id AND c.match_id = cp.match_id
             WHERE cp.tenant_id = fp.tenant_id AND cp.player_id = fp.player_id
               AND c.status = 'completed' AND c.created_at > f.created_at)`,
      [user.tenantId, GAME],
    );
    console.log(
      `example-game-server figures: ${formatFigures(figures)} lost=${lost} ` +
        `undeliveredRequeued=${failed.length} completedAtKill=${atKill.matchesCompleted} ` +
        `gatewayOutageMs=${restartedAt - killedAt} durationMs=${durationMs}`,
    );

    expect(figures.matchesCompleted).toBeGreaterThanOrEqual(MATCHES);
    expect(figures.duplicates).toBe(0);
    expect(figures.failures).toBe(0);
    expect(lost).toBe(0);
    expect(stuck).toBe(0);
    // Each completion counted once by the platform, and every one the server made is there.
    expect(byStatus.completed).toBe(figures.matchesCompleted);
    expect(figures.reconnects).toBeGreaterThanOrEqual(1);
    // It carried on: the second half was played after the restart, with no help from the test.
    expect(figures.matchesCompleted - atKill.matchesCompleted).toBeGreaterThanOrEqual(MATCHES / 2);
    // Every failed match is one the killed gateway took with it (offered in the second and a half
    // its subscriptions outlived it), and its players played again.
    for (const f of failed) {
      expect(f.created_at.getTime()).toBeGreaterThan(killedAt - 2000);
      expect(f.created_at.getTime()).toBeLessThan(restartedAt + 3000);
    }
    expect(neverPlayed.length).toBeLessThan(config.numTeams * config.numPlayersPerTeam);
    expect(figures.backfills).toBeGreaterThan(0);
    expect(figures.backfillsFilled).toBeGreaterThan(0);
  }, 180_000);
});
