import type { Redis, RedisKeys } from "@arena/redis";
import { redisReadiness } from "@arena/redis";
import {
  Counter,
  createServiceApp,
  Gauge,
  Histogram,
  type Logger,
  type ServiceApp,
} from "@arena/service-kit";
import { requireServiceToken } from "./access/service-auth.js";
import { backfillRoutes } from "./backfill/backfill-routes.js";
import { BackfillStore } from "./backfill/backfill-store.js";
import type { Clock } from "./clock.js";
import type { StatsConfig } from "./config.js";
import { type Database, databaseReadiness, type SqlPool } from "./db.js";
import { gameRoutes } from "./games/game-routes.js";
import { GameStore } from "./games/game-store.js";
import { leaderboardRoutes } from "./leaderboards/leaderboard-routes.js";
import { LeaderboardStore } from "./leaderboards/leaderboard-store.js";
import { MatchCompletion } from "./matches/match-completion.js";
import { MatchLifecycle } from "./matches/match-lifecycle.js";
import { matchRoutes } from "./matches/match-routes.js";
import { MatchStore } from "./matches/match-store.js";
import { GameLocks } from "./matchmaking-loop/game-lock.js";
import { MatchmakerClient } from "./matchmaking-loop/matchmaker-client.js";
import { MatchmakingLoop, type MatchmakingLoopDeps } from "./matchmaking-loop/matchmaking-loop.js";
import { LeaderboardOutbox } from "./outbox/leaderboard-outbox.js";
import { playerRoutes } from "./players/player-routes.js";
import { PlayerStatsService } from "./players/player-stats.js";
import { PlayerStatsStore } from "./players/player-stats-store.js";
import { noPusher, type Pusher } from "./push/pusher.js";
import { queueRoutes } from "./queue/queue-routes.js";
import { QueueStore } from "./queue/queue-store.js";
import { seasonRoutes } from "./seasons/season-routes.js";
import { SeasonStore } from "./seasons/season-store.js";

export interface StatsAppDeps {
  db: Database;
  /** The pool `db` runs on, for the hot paths that bypass Prisma. */
  pool: SqlPool;
  /**
   * The matchmaking loop's own connections (MATCHMAKING_POOL_SIZE), so its steps never queue
   * behind request traffic for one of `pool`'s; `pool` when not given.
   */
  loopPool?: SqlPool;
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  config: Pick<StatsConfig, "SERVICE_TOKEN" | "REBUILD_WAIT_MS"> &
    Partial<
      Pick<
        StatsConfig,
        "MATCHMAKER_URL" | "MATCHMAKING_LOCK_MS" | "MATCHMAKER_TIMEOUT_MS" | "COMPLETION_TRANSACTIONS"
      >
    >;
  logger: Logger;
  /** The WebSocket push fan-out (`PushFanout` of @arena/redis); none: nothing is pushed. */
  pusher?: Pusher;
  /** The matchmaker the loop calls; an HTTP client of MATCHMAKER_URL unless given. */
  matchmaker?: MatchmakingLoopDeps["matchmaker"];
}

export interface StatsApp extends ServiceApp {
  games: GameStore;
  seasons: SeasonStore;
  matches: MatchStore;
  completion: MatchCompletion;
  leaderboards: LeaderboardStore;
  stats: PlayerStatsStore;
  playerStats: PlayerStatsService;
  outbox: LeaderboardOutbox;
  queue: QueueStore;
  matchLifecycle: MatchLifecycle;
  backfill: BackfillStore;
  loop: MatchmakingLoop;
  /** Closes what the app opened itself (the matchmaker client). */
  closeClients(): Promise<void>;
}

export function createApp(deps: StatsAppDeps): StatsApp {
  const { db, pool, redis, keys, clock, config, logger } = deps;
  // Registered with the app's registry below, once createServiceApp has made it.
  const metrics = {
    completions: new Counter({
      name: "stats_match_completions_total",
      help: "Match completions by result (completed, or replayed: the stored answer again)",
      labelNames: ["result"] as const,
      registers: [],
    }),
    completionSeconds: new Histogram({
      name: "stats_match_completion_seconds",
      help: "Time to complete a match: transaction and leaderboard write",
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [],
    }),
    completionBatch: new Histogram({
      name: "stats_match_completion_batch_size",
      help: "Completions per PostgreSQL transaction (completions that arrive together share one)",
      buckets: [1, 2, 4, 8, 16, 32],
      registers: [],
    }),
    reads: new Counter({
      name: "stats_leaderboard_reads_total",
      help: "Leaderboard reads by variant",
      labelNames: ["variant"] as const,
      registers: [],
    }),
    rebuilds: new Counter({
      name: "stats_leaderboard_rebuilds_total",
      help: "Leaderboards rebuilt from PostgreSQL",
      registers: [],
    }),
    rebuildSeconds: new Histogram({
      name: "stats_leaderboard_rebuild_seconds",
      help: "Time to rebuild one leaderboard from PostgreSQL",
      buckets: [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 20, 40],
      registers: [],
    }),
    matchesFormed: new Counter({
      name: "stats_matches_formed_total",
      help: "Match suggestions stored by the matchmaking loop, per game",
      labelNames: ["game"] as const,
      registers: [],
    }),
    suggestionsDropped: new Counter({
      name: "stats_suggestions_dropped_total",
      help: "Suggestions dropped because a player left the queue while the matchmaker worked",
      labelNames: ["game"] as const,
      registers: [],
    }),
    matchesTimedOut: new Counter({
      name: "stats_matches_timed_out_total",
      help: "Suggestions failed for want of a confirmation in time (players requeued)",
      labelNames: ["game"] as const,
      registers: [],
    }),
    pushes: new Counter({
      name: "stats_match_pushes_total",
      help: "Match suggestions offered to WebSocket subscribers, by outcome",
      labelNames: ["outcome"] as const,
      registers: [],
    }),
    playersExpired: new Counter({
      name: "stats_players_expired_total",
      help: "Players removed from the queue after maxQueueSeconds (reason expired)",
      labelNames: ["game"] as const,
      registers: [],
    }),
    tickSeconds: new Histogram({
      name: "stats_matchmaking_tick_seconds",
      help: "Time of one game's matchmaking tick, by outcome",
      labelNames: ["game", "outcome"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [],
    }),
    tickStepSeconds: new Histogram({
      name: "stats_matchmaking_tick_step_seconds",
      help: "Time of each step of a game's matchmaking tick (where a slow tick spends it)",
      labelNames: ["game", "step"] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [],
    }),
    queueLength: new Gauge({
      name: "stats_queue_waiting_players",
      help: "Waiting players per game at its last tick",
      labelNames: ["tenant", "game"] as const,
      registers: [],
    }),
    oldestWait: new Gauge({
      name: "stats_queue_oldest_wait_seconds",
      help: "Wait of the game's longest-waiting player at its last tick",
      labelNames: ["tenant", "game"] as const,
      registers: [],
    }),
    outboxDepth: new Gauge({
      name: "stats_leaderboard_outbox_depth",
      help: "Leaderboard writes committed in PostgreSQL and not yet confirmed in Redis",
      registers: [],
    }),
    completionsWaiting: new Gauge({
      name: "stats_match_completions_waiting",
      help: "Match completions waiting for a transaction (COMPLETION_TRANSACTIONS are all running)",
      registers: [],
      collect() {
        this.set(completion.waiting);
      },
    }),
  };

  const games = new GameStore(db, clock);
  const seasons = new SeasonStore(db, pool, clock);
  const stats = new PlayerStatsStore(db, pool);
  const matches = new MatchStore(db);
  const leaderboards = new LeaderboardStore({
    redis,
    keys,
    source: stats,
    logger,
    rebuildWaitMs: config.REBUILD_WAIT_MS,
    metrics: {
      rebuilt(seconds) {
        metrics.rebuilds.inc();
        metrics.rebuildSeconds.observe(seconds);
      },
    },
  });
  const outbox = new LeaderboardOutbox({ db, pool, stats, leaderboards, logger, depth: metrics.outboxDepth });
  const completion = new MatchCompletion({
    pool,
    outbox,
    clock,
    seasons,
    leaderboards,
    logger,
    metrics: {
      completed(result, seconds) {
        metrics.completions.inc({ result });
        metrics.completionSeconds.observe(seconds);
      },
      batch: (size) => metrics.completionBatch.observe(size),
    },
    ...(config.COMPLETION_TRANSACTIONS ? { maxConcurrentBatches: config.COMPLETION_TRANSACTIONS } : {}),
  });
  const playerStats = new PlayerStatsService({ stats, games, seasons, leaderboards });
  const pusher = deps.pusher ?? noPusher;
  // The queue, lifecycle and backfill over one pool: one set for requests, one for the loop.
  const hostedQueue = (pool: SqlPool) => {
    const lifecycle = new MatchLifecycle({
      pool,
      clock,
      pusher,
      logger,
      metrics: {
        matchesFormed: (game, n) => metrics.matchesFormed.inc({ game }, n),
        suggestionsDropped: (game, n) => metrics.suggestionsDropped.inc({ game }, n),
        timedOut: (game, n) => metrics.matchesTimedOut.inc({ game }, n),
        pushed: (outcome, count) => metrics.pushes.inc({ outcome }, count),
      },
    });
    const queue = new QueueStore({ pool, clock, lifecycle, seasons });
    const backfill = new BackfillStore({ pool, clock, queue, lifecycle, pusher, logger });
    return { lifecycle, queue, backfill };
  };
  const { lifecycle, queue, backfill } = hostedQueue(pool);
  const forLoop =
    deps.loopPool && deps.loopPool !== pool ? hostedQueue(deps.loopPool) : { lifecycle, queue, backfill };
  const matchmakerClient = deps.matchmaker
    ? undefined
    : new MatchmakerClient(
        config.MATCHMAKER_URL ?? "http://127.0.0.1:8000",
        config.MATCHMAKER_TIMEOUT_MS ?? 10_000,
      );
  const loop = new MatchmakingLoop({
    games,
    ...forLoop,
    locks: new GameLocks(redis, keys, config.MATCHMAKING_LOCK_MS ?? 5000),
    matchmaker: deps.matchmaker ?? matchmakerClient!,
    pusher,
    clock,
    logger,
    metrics: {
      tick: (game, seconds, outcome) => metrics.tickSeconds.observe({ game, outcome }, seconds),
      step: (game, step, seconds) => metrics.tickStepSeconds.observe({ game, step }, seconds),
      queue(tenant, game, waiting, oldest) {
        metrics.queueLength.set({ tenant, game }, waiting);
        metrics.oldestWait.set({ tenant, game }, oldest);
      },
      expired: (game, n) => metrics.playersExpired.inc({ game }, n),
    },
  });

  const service = createServiceApp({
    name: "stats",
    logger,
    bodyLimit: "64kb",
    readiness: [databaseReadiness(db), redisReadiness(redis)],
    routes: (app) => {
      // Everything but /livez, /readyz and /metrics (mounted before) needs the gateway's token.
      app.use(requireServiceToken(config.SERVICE_TOKEN));
      // The HTTP floor of the benchmark: authenticated, constant answer, no storage. A POST body
      // is parsed (by the kit's JSON parser) and ignored, so the floor pays for reading a request
      // like the leaderboard's.
      const ping = (_req: unknown, res: { json(body: unknown): void }) => res.json({ ok: true });
      app.get("/internal/ping", ping);
      app.post("/internal/ping", ping);
      app.use(gameRoutes(games));
      app.use(seasonRoutes(seasons));
      app.use(leaderboardRoutes({ games, seasons, leaderboards, reads: metrics.reads }));
      app.use(queueRoutes({ games, queue }));
      app.use(matchRoutes({ games, lifecycle, completion }));
      app.use(backfillRoutes({ games, backfill }));
      app.use(playerRoutes({ playerStats, stats }));
    },
  });
  for (const metric of Object.values(metrics)) service.metrics.registry.registerMetric(metric);
  return {
    ...service,
    games,
    seasons,
    matches,
    completion,
    leaderboards,
    stats,
    playerStats,
    outbox,
    queue,
    matchLifecycle: lifecycle,
    backfill,
    loop,
    closeClients: async () => {
      await matchmakerClient?.close();
    },
  };
}
