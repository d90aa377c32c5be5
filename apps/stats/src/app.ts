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
import type { Clock } from "./clock.js";
import type { StatsConfig } from "./config.js";
import { type Database, databaseReadiness, type SqlPool } from "./db.js";
import { gameRoutes } from "./games/game-routes.js";
import { GameStore } from "./games/game-store.js";
import { leaderboardRoutes } from "./leaderboards/leaderboard-routes.js";
import { LeaderboardStore } from "./leaderboards/leaderboard-store.js";
import { MatchCompletion } from "./matches/match-completion.js";
import { matchRoutes } from "./matches/match-routes.js";
import { MatchStore } from "./matches/match-store.js";
import { LeaderboardOutbox } from "./outbox/leaderboard-outbox.js";
import { playerRoutes } from "./players/player-routes.js";
import { PlayerStatsService } from "./players/player-stats.js";
import { PlayerStatsStore } from "./players/player-stats-store.js";
import { seasonRoutes } from "./seasons/season-routes.js";
import { SeasonStore } from "./seasons/season-store.js";

export interface StatsAppDeps {
  db: Database;
  /** The pool `db` runs on, for the hot paths that bypass Prisma. */
  pool: SqlPool;
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  config: Pick<StatsConfig, "SERVICE_TOKEN" | "REBUILD_WAIT_MS">;
  logger: Logger;
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
    outboxDepth: new Gauge({
      name: "stats_leaderboard_outbox_depth",
      help: "Leaderboard writes committed in PostgreSQL and not yet confirmed in Redis",
      registers: [],
    }),
  };

  const games = new GameStore(db, clock);
  const seasons = new SeasonStore(db, clock);
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
    },
  });
  const playerStats = new PlayerStatsService({ stats, games, seasons, leaderboards });

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
      app.use(matchRoutes(completion));
      app.use(playerRoutes({ playerStats, stats }));
    },
  });
  for (const metric of Object.values(metrics)) service.metrics.registry.registerMetric(metric);
  return { ...service, games, seasons, matches, completion, leaderboards, stats, playerStats, outbox };
}
