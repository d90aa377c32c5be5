import { hostedOperation } from "@arena/contracts";
import type { Redis, RedisKeys } from "@arena/redis";
import { redisReadiness } from "@arena/redis";
import { createServiceApp, type Logger, type Registry, type ServiceApp } from "@arena/service-kit";
import { requireServiceToken } from "./access/service-auth.js";
import { backfillOperations } from "./backfill/backfill-operations.js";
import { BackfillStore } from "./backfill/backfill-store.js";
import type { Clock } from "./clock.js";
import type { StatsConfig } from "./config.js";
import { type Database, databaseReadiness, type SqlPool } from "./db.js";
import { gameOperations } from "./games/game-operations.js";
import { GameStore } from "./games/game-store.js";
import { checkedOperation, operationRoutes } from "./http/operation-routes.js";
import { leaderboardMetrics } from "./leaderboards/leaderboard-metrics.js";
import { leaderboardBatchOperations, leaderboardOperations } from "./leaderboards/leaderboard-operations.js";
import { LeaderboardStore } from "./leaderboards/leaderboard-store.js";
import { MatchCompletion } from "./matches/match-completion.js";
import { MatchLifecycle } from "./matches/match-lifecycle.js";
import { matchMetrics } from "./matches/match-metrics.js";
import { matchOperations } from "./matches/match-operations.js";
import { GameLocks } from "./matchmaking-loop/game-lock.js";
import { loopMetrics } from "./matchmaking-loop/loop-metrics.js";
import { MatchmakerClient } from "./matchmaking-loop/matchmaker-client.js";
import { MatchmakingLoop, type MatchmakingLoopDeps } from "./matchmaking-loop/matchmaking-loop.js";
import { LeaderboardOutbox } from "./outbox/leaderboard-outbox.js";
import { playerOperations } from "./players/player-operations.js";
import { PlayerStatsService } from "./players/player-stats.js";
import { PlayerStatsStore } from "./players/player-stats-store.js";
import { noPusher, type Pusher } from "./push/pusher.js";
import { queueMetrics } from "./queue/queue-metrics.js";
import { queueOperations } from "./queue/queue-operations.js";
import { QueueStore } from "./queue/queue-store.js";
import { ReadReplica, replicaLagMetrics } from "./read-replica.js";
import { seasonOperations } from "./seasons/season-operations.js";
import { SeasonStore } from "./seasons/season-store.js";

type Metric = Parameters<Registry["registerMetric"]>[0];

/** The settings the app itself reads (main.ts reads the rest); defaults are the config schema's. */
export type StatsAppConfig = Pick<
  StatsConfig,
  | "SERVICE_TOKEN"
  | "REBUILD_WAIT_MS"
  | "MATCHMAKER_URL"
  | "MATCHMAKING_LOCK_MS"
  | "MATCHMAKER_TIMEOUT_MS"
  | "COMPLETION_TRANSACTIONS"
>;

export interface StatsAppDeps {
  db: Database;
  /** The pool `db` runs on, for the hot paths that bypass Prisma. */
  pool: SqlPool;
  /**
   * The matchmaking loop's own connections (MATCHMAKING_POOL_SIZE), so its steps never queue
   * behind request traffic for one of `pool`'s; `pool` when not given.
   */
  loopPool?: SqlPool;
  /** Where stale-tolerant reads go (DATABASE_READ_URL); the primary (`db`, `pool`) when not given. */
  replica?: ReadReplica;
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  config: StatsAppConfig;
  logger: Logger;
  /** The WebSocket push fan-out (`PushFanout` of @arena/redis); none: nothing is pushed. */
  pusher?: Pusher;
  /** The matchmaker the loop calls; an HTTP client of MATCHMAKER_URL unless given. */
  matchmaker?: MatchmakingLoopDeps["matchmaker"];
}

export interface StatsApp extends ServiceApp {
  games: GameStore;
  seasons: SeasonStore;
  completion: MatchCompletion;
  leaderboards: LeaderboardStore;
  /** Statistics rows and history (storage); `playerStats` builds the answers from it. */
  playerStatsStore: PlayerStatsStore;
  playerStats: PlayerStatsService;
  outbox: LeaderboardOutbox;
  queue: QueueStore;
  matchLifecycle: MatchLifecycle;
  backfill: BackfillStore;
  loop: MatchmakingLoop;
  /** Closes what the app opened itself (the matchmaker client). */
  closeClients(): Promise<void>;
}

/**
 * The stats service: its domains built over one database and Redis, every operation of the
 * action table served behind the gateway's service token, each domain's metrics registered.
 */
export function createApp(deps: StatsAppDeps): StatsApp {
  const domains = createDomains(deps);
  const service = createServiceApp({
    name: "stats",
    logger: deps.logger,
    bodyLimit: "64kb",
    readiness: [databaseReadiness(deps.db), redisReadiness(deps.redis)],
    routes: (app) => {
      // Everything but /livez, /readyz and /metrics (mounted before) needs the gateway's token.
      app.use(requireServiceToken(deps.config.SERVICE_TOKEN));
      app.use(operationRoutes(domains.handlers));
    },
  });
  for (const metric of domains.metrics) service.metrics.registry.registerMetric(metric as Metric);
  const { handlers: _handlers, metrics: _metrics, ...parts } = domains;
  return { ...service, ...parts };
}

/** Stores, services and the loop, each domain with its metrics and its operations' handlers. */
function createDomains(deps: StatsAppDeps) {
  const statistics = createStatistics(deps);
  const hosted = createHostedQueue(deps, statistics);
  const { games, seasons, leaderboards, completion, playerStats, playerStatsStore } = statistics;
  const { lifecycle, queue, backfill } = hosted;
  const boards = leaderboardOperations({
    games,
    seasons,
    leaderboards,
    reads: statistics.boardMetrics.reads,
  });
  const handlers = {
    ...gameOperations(games),
    ...seasonOperations(seasons),
    ...boards,
    ...leaderboardBatchOperations(checkedOperation(hostedOperation("getLeaderboard"), boards.getLeaderboard)),
    ...queueOperations({ games, queue }),
    ...matchOperations({ games, lifecycle, completion }),
    ...backfillOperations({ games, backfill }),
    ...playerOperations({ playerStats, stats: playerStatsStore }),
  };
  return {
    ...statistics.parts,
    queue,
    matchLifecycle: lifecycle,
    backfill,
    loop: hosted.loop,
    closeClients: hosted.closeClients,
    handlers,
    metrics: [
      ...statistics.boardMetrics.all,
      ...statistics.matchMetrics.all,
      ...statistics.replicaMetrics,
      ...hosted.metrics,
    ],
  };
}

/** Games, seasons, ratings and statistics, leaderboards and their outbox, match completion. */
function createStatistics({ db, pool, redis, keys, clock, config, logger, ...deps }: StatsAppDeps) {
  const replica = deps.replica ?? new ReadReplica({ db, pool });
  const games = new GameStore(db, clock, pool);
  const seasons = new SeasonStore(db, pool, clock, replica);
  const playerStatsStore = new PlayerStatsStore(db, pool, replica);
  const boardMetrics = leaderboardMetrics();
  const leaderboards = new LeaderboardStore({
    redis,
    keys,
    source: playerStatsStore,
    logger,
    rebuildWaitMs: config.REBUILD_WAIT_MS,
    metrics: boardMetrics.store,
  });
  const outbox = new LeaderboardOutbox({
    db,
    pool,
    stats: playerStatsStore,
    leaderboards,
    logger,
    depth: boardMetrics.outboxDepth,
  });
  const matches = matchMetrics(() => completion.waiting);
  const completion = new MatchCompletion({
    pool,
    outbox,
    clock,
    seasons,
    leaderboards,
    logger,
    metrics: matches.completion,
    maxConcurrentBatches: config.COMPLETION_TRANSACTIONS,
  });
  const playerStats = new PlayerStatsService({ stats: playerStatsStore, games, seasons, leaderboards });
  const parts = { games, seasons, completion, leaderboards, playerStatsStore, playerStats, outbox };
  const lag = replicaLagMetrics(replica, (err) => logger.warn({ err }, "replica lag not measured"));
  return { ...parts, parts, boardMetrics, matchMetrics: matches, replicaMetrics: lag };
}

/**
 * The hosted queue: lifecycle, queue and backfill over one pool (one set for requests, one for the
 * matchmaking loop on its own connections), and the loop.
 */
function createHostedQueue(deps: StatsAppDeps, statistics: ReturnType<typeof createStatistics>) {
  const { pool, redis, keys, clock, config, logger } = deps;
  const { games, seasons } = statistics;
  const pusher = deps.pusher ?? noPusher;
  const overPool = (pool: SqlPool) => {
    const lifecycle = new MatchLifecycle({
      pool,
      clock,
      pusher,
      logger,
      metrics: statistics.matchMetrics.lifecycle,
    });
    const queue = new QueueStore({ pool, clock, lifecycle, seasons });
    const backfill = new BackfillStore({ pool, clock, queue, lifecycle, pusher, logger });
    return { lifecycle, queue, backfill };
  };
  const forRequests = overPool(pool);
  const forLoop = deps.loopPool && deps.loopPool !== pool ? overPool(deps.loopPool) : forRequests;
  const matchmakerClient = deps.matchmaker
    ? undefined
    : new MatchmakerClient(config.MATCHMAKER_URL, config.MATCHMAKER_TIMEOUT_MS);
  const ticks = loopMetrics();
  const queueGauges = queueMetrics({ queue: forRequests.queue, clock, logger });
  const loop = new MatchmakingLoop({
    games,
    ...forLoop,
    locks: new GameLocks(redis, keys, config.MATCHMAKING_LOCK_MS),
    matchmaker: deps.matchmaker ?? matchmakerClient!,
    pusher,
    clock,
    logger,
    metrics: ticks.loop,
  });
  const closeClients = async () => {
    await matchmakerClient?.close();
  };
  return { ...forRequests, loop, closeClients, metrics: [...ticks.all, ...queueGauges.all] };
}
