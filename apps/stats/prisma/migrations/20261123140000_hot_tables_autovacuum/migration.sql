-- The hosted queue's tables change faster than autovacuum's defaults follow (analyze after 10 %
-- of a table changed, vacuum after 20 %): every waiting player's row is inserted, updated and
-- deleted within seconds, and matches and rosters grow by hundreds a second under load. Plans made
-- on stale statistics (the foreign-key checks of a roster insert planned as sequential scans while
-- the tables were empty) made one matchmaking round take seconds. Analyze and vacuum them after a
-- fixed number of changes instead. Storage parameters only: Prisma's schema does not model them.
ALTER TABLE "queue_players" SET (
  autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_analyze_threshold = 500, autovacuum_analyze_scale_factor = 0.02
);
ALTER TABLE "matches" SET (
  autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0.05,
  autovacuum_analyze_threshold = 500, autovacuum_analyze_scale_factor = 0.05
);
ALTER TABLE "match_players" SET (
  autovacuum_analyze_threshold = 500, autovacuum_analyze_scale_factor = 0.05
);
