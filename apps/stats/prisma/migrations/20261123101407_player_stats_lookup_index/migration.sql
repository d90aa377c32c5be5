-- DropIndex
DROP INDEX "player_stats_tenant_id_player_id_idx";

-- CreateIndex
CREATE INDEX "player_stats_tenant_id_player_id_game_id_season_idx" ON "player_stats"("tenant_id", "player_id", "game_id", "season");
