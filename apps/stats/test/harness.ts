import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestDatabase, type TestDatabase } from "@arena/database/testing";
import { type LicenseClient, type LicenseState, requireEdition } from "@arena/license-client";
import { createApp as createMatchmakerApp } from "@arena/matchmaker/app";
import { closeRedis, createRedis, type Redis } from "@arena/redis";
import { createTestRedis, type TestRedis } from "@arena/redis/testing";
import { createLogger, LogCapture, ManualClock as TestClock } from "@arena/service-kit";
import supertest from "supertest";
import { createApp, type StatsApp } from "../src/app.js";
import { loadStatsConfig } from "../src/config.js";
import { createDatabaseClient, createPool, type Database, type PoolMode, type SqlPool } from "../src/db.js";
import type { Pusher } from "../src/push/pusher.js";
import { ReadReplica } from "../src/read-replica.js";
import { migrationsDir, schemaPath } from "../src/schema-version.js";
import { insertMatch } from "./match-fixture.js";

/** Harness names for the kit's test helpers, so the tests read as before. */
export { LogCapture, TestClock };

export const SERVICE_TOKEN = "test-service-token-0123456789";

export interface StatsInstance {
  stats: StatsApp;
  db: Database;
  /** The pool `db` runs on (for the stores' own statements). */
  pool: SqlPool;
  redis: Redis;
  http: ReturnType<typeof supertest>;
  close(): Promise<void>;
}

export interface Harness extends StatsInstance {
  database: TestDatabase;
  testRedis: TestRedis;
  clock: TestClock;
  /** Another app on the same database and Redis prefix (a replica, or one with another Redis). */
  startInstance(options?: InstanceOptions): Promise<StatsInstance>;
  /** The real matchmaker the loop calls, in this process on the harness clock. */
  matchmakerUrl: string;
  /** Requests as the gateway sends them: token, tenant and role headers. */
  as(tenantId: string, role?: "server" | "admin"): Caller;
  close(): Promise<void>;
}

export interface Caller {
  get(path: string): supertest.Test;
  post(path: string, body?: object): supertest.Test;
  put(path: string, body?: object): supertest.Test;
  delete(path: string): supertest.Test;
}

export interface InstanceOptions {
  redisUrl?: string;
  pusher?: Pusher;
  /** Match-completion transactions at once (the app's default unless given). */
  completionTransactions?: number;
}

export interface HarnessOptions extends InstanceOptions {
  /** The PostgreSQL server the test database is created (and migrated) on; default the local one. */
  databaseServerUrl?: string;
  /**
   * How the apps reach the test database (its direct URL given): through a pooler, in which
   * DATABASE_POOL_MODE, with a read replica (`readUrl`) whose reads wait `catchUpMs` at most.
   */
  connection?: (databaseUrl: string) => {
    url: string;
    poolMode?: PoolMode;
    readUrl?: string;
    catchUpMs?: number;
  };
}

/** A license that is always valid and advanced: the matchmaker's own tests cover licensing. */
function validLicense(): LicenseClient {
  const state: LicenseState = {
    status: "valid",
    edition: "advanced",
    licenseId: "lic_stats_test",
    leaseExpiresAt: new Date(Date.now() + 3_600_000),
    lastValidatedAt: new Date(),
    reason: null,
  };
  return {
    start: async () => state,
    stop: () => {},
    refresh: async () => state,
    state: () => state,
    onChange: () => () => {},
    require: (edition) => requireEdition(state, edition),
  };
}

async function startMatchmaker(clock: TestClock): Promise<{ url: string; server: Server }> {
  const app = createMatchmakerApp({
    config: {
      MAX_BODY_BYTES: 16 * 1024 * 1024,
      MAX_TICKETS: 100_000,
      MAX_MATCH_PLAYERS: 1000,
      CLOCK_SKEW_SECONDS: 5,
    },
    license: validLicense(),
    logger: createLogger({ name: "matchmaker", level: "silent" }),
    clock,
  });
  const server = createServer(app.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const database = await createTestDatabase({
    schemaPath,
    migrationsDir,
    prefix: "stats_test",
    ...(options.databaseServerUrl ? { baseUrl: options.databaseServerUrl } : {}),
  });
  const connection = options.connection?.(database.url) ?? { url: database.url };
  const testRedis = await createTestRedis("stats_test");
  const clock = new TestClock();
  const instances: StatsInstance[] = [];
  const matchmaker = await startMatchmaker(clock);

  const startInstance = async (options: InstanceOptions = {}): Promise<StatsInstance> => {
    const pool = createPool(connection.url, 10, connection.poolMode);
    // The loop on its own connections, as main.ts runs it.
    const loopPool = createPool(connection.url, 2, connection.poolMode);
    const db = createDatabaseClient(pool);
    const readPool = connection.readUrl ? createPool(connection.readUrl, 10, connection.poolMode) : undefined;
    const readDb = readPool ? createDatabaseClient(readPool) : undefined;
    const replica = new ReadReplica(
      { db, pool },
      readDb && readPool ? { db: readDb, pool: readPool } : undefined,
      connection.catchUpMs,
    );
    // Like production: commands fail at once while Redis is unreachable (no offline queue).
    const redis = createRedis(options.redisUrl ?? testRedis.connection, { connectionName: "stats-test" });
    const logger = createLogger({ name: "stats", level: "silent" });
    const stats = createApp({
      db,
      pool,
      loopPool,
      replica,
      redis,
      keys: testRedis.keys,
      clock,
      config: loadStatsConfig({
        SERVICE_TOKEN,
        REBUILD_WAIT_MS: "10000",
        MATCHMAKER_URL: matchmaker.url,
        ...(options.completionTransactions
          ? { COMPLETION_TRANSACTIONS: String(options.completionTransactions) }
          : {}),
      }),
      logger,
      ...(options.pusher ? { pusher: options.pusher } : {}),
    });
    const instance: StatsInstance = {
      stats,
      db,
      pool,
      redis,
      http: supertest(stats.app),
      async close() {
        await stats.loop.stop();
        await stats.closeClients();
        await stats.outbox.stop();
        await closeRedis(redis);
        await db.$disconnect();
        await pool.end();
        await loopPool.end();
        await readDb?.$disconnect();
        await readPool?.end();
      },
    };
    instances.push(instance);
    return instance;
  };

  const main = await startInstance(options);
  const as = (tenantId: string, role: "server" | "admin" = "admin"): Caller => {
    const auth = (t: supertest.Test) =>
      t
        .set("authorization", `Bearer ${SERVICE_TOKEN}`)
        .set("x-arena-tenant", tenantId)
        .set("x-arena-role", role);
    return {
      get: (path) => auth(main.http.get(path)),
      post: (path, body) =>
        body === undefined ? auth(main.http.post(path)) : auth(main.http.post(path)).send(body),
      put: (path, body) =>
        body === undefined ? auth(main.http.put(path)) : auth(main.http.put(path)).send(body),
      delete: (path) => auth(main.http.delete(path)),
    };
  };
  return {
    ...main,
    database,
    testRedis,
    clock,
    startInstance,
    matchmakerUrl: matchmaker.url,
    as,
    async close() {
      for (const instance of instances) await instance.close().catch(() => {});
      await new Promise((resolve) => matchmaker.server.close(resolve));
      await testRedis.cleanup();
      await database.drop();
    },
  };
}

export const gameConfig = (numTeams = 2, numPlayersPerTeam = 1) => ({
  numTeams,
  numPlayersPerTeam,
  servers: ["eu-1", "us-1"],
});

/** Creates a confirmed match of these teams (player ids) and answers its id. */
export async function createMatch(
  h: Pick<Harness, "db">,
  tenantId: string,
  gameId: string,
  teams: string[][],
): Promise<string> {
  const matchId = randomUUID();
  await insertMatch(h.db, tenantId, {
    matchId,
    gameId,
    server: "eu-1",
    teams: teams.map((team) => team.map((playerId) => ({ playerId }))),
  });
  return matchId;
}

/** A completion body: team i gets rank ranks[i] (the winners first by default). */
export function result(teams: string[][], ranks: number[] = teams.map((_, i) => i)) {
  return {
    teams: teams.map((players, i) => ({
      rank: ranks[i]!,
      players: players.map((playerId) => ({ playerId, score: 10 })),
    })),
  };
}

/** Creates, then completes a match; answers the completion response. */
export async function playMatch(
  h: Harness,
  tenantId: string,
  gameId: string,
  teams: string[][],
  ranks?: number[],
) {
  const matchId = await createMatch(h, tenantId, gameId, teams);
  const res = await h
    .as(tenantId, "server")
    .post(`/games/${gameId}/matches/${matchId}/statuses/completed`, result(teams, ranks));
  if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${res.text}`);
  return { matchId, body: res.body as { players: Array<Record<string, unknown> & { playerId: string }> } };
}

export interface SeedEntry {
  playerId: string;
  points: number;
  /** Seconds after 2026-01-01 when the points were reached. */
  at: number;
  seq?: number;
}

/** Writes statistics rows straight into PostgreSQL (the board then comes from a rebuild). */
export async function seedBoard(
  db: Database,
  tenantId: string,
  gameId: string,
  season: number,
  entries: SeedEntry[],
) {
  const base = Date.UTC(2026, 0, 1);
  await db.player.createMany({
    data: entries.map((e) => ({ tenantId, playerId: e.playerId, seq: BigInt(e.seq ?? 1) })),
    skipDuplicates: true,
  });
  await db.playerStat.createMany({
    data: entries.map((e) => ({
      tenantId,
      gameId,
      season,
      playerId: e.playerId,
      mu: 25,
      sigma: 25 / 3,
      rankingPoints: e.points,
      pointsChangedAt: new Date(base + e.at * 1000),
      matches: 1,
      boardSeq: BigInt(e.seq ?? 1),
      updatedAt: new Date(base),
    })),
  });
}
