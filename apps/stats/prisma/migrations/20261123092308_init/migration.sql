-- CreateEnum
CREATE TYPE "MatchStatus" AS ENUM ('suggested', 'delivered', 'confirmed', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "RosterRole" AS ENUM ('original', 'backfill');

-- CreateEnum
CREATE TYPE "Outcome" AS ENUM ('win', 'loss', 'draw');

-- CreateTable
CREATE TABLE "games" (
    "tenant_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "num_teams" INTEGER NOT NULL,
    "num_players_per_team" INTEGER NOT NULL,
    "max_queue_seconds" INTEGER NOT NULL,
    "config" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "games_pkey" PRIMARY KEY ("tenant_id","game_id")
);

-- CreateTable
CREATE TABLE "seasons" (
    "tenant_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "rating_carry_over" DOUBLE PRECISION,
    "carry_over_by_game" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "seasons_pkey" PRIMARY KEY ("tenant_id","number")
);

-- CreateTable
CREATE TABLE "players" (
    "tenant_id" TEXT NOT NULL,
    "player_id" TEXT NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,
    "total_matches" INTEGER NOT NULL DEFAULT 0,
    "total_wins" INTEGER NOT NULL DEFAULT 0,
    "total_losses" INTEGER NOT NULL DEFAULT 0,
    "total_draws" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "players_pkey" PRIMARY KEY ("tenant_id","player_id")
);

-- CreateTable
CREATE TABLE "player_stats" (
    "tenant_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "season" INTEGER NOT NULL,
    "player_id" TEXT NOT NULL,
    "mu" DOUBLE PRECISION NOT NULL,
    "sigma" DOUBLE PRECISION NOT NULL,
    "ranking_points" INTEGER NOT NULL,
    "points_changed_at" TIMESTAMPTZ(3) NOT NULL,
    "wins" INTEGER NOT NULL DEFAULT 0,
    "losses" INTEGER NOT NULL DEFAULT 0,
    "draws" INTEGER NOT NULL DEFAULT 0,
    "matches" INTEGER NOT NULL DEFAULT 0,
    "rating_delta_last_game" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "ranking_delta_last_game" INTEGER NOT NULL DEFAULT 0,
    "board_seq" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "player_stats_pkey" PRIMARY KEY ("tenant_id","game_id","season","player_id")
);

-- CreateTable
CREATE TABLE "matches" (
    "tenant_id" TEXT NOT NULL,
    "match_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "status" "MatchStatus" NOT NULL,
    "server" TEXT NOT NULL,
    "match_score" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "result_request" TEXT,
    "result_answer" JSONB,

    CONSTRAINT "matches_pkey" PRIMARY KEY ("tenant_id","match_id")
);

-- CreateTable
CREATE TABLE "match_players" (
    "tenant_id" TEXT NOT NULL,
    "match_id" TEXT NOT NULL,
    "player_id" TEXT NOT NULL,
    "team" INTEGER NOT NULL,
    "reference" TEXT,
    "role" "RosterRole" NOT NULL DEFAULT 'original',
    "dropped_at" TIMESTAMPTZ(3),

    CONSTRAINT "match_players_pkey" PRIMARY KEY ("tenant_id","match_id","player_id")
);

-- CreateTable
CREATE TABLE "match_results" (
    "tenant_id" TEXT NOT NULL,
    "match_id" TEXT NOT NULL,
    "player_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "season" INTEGER NOT NULL,
    "completed_at" TIMESTAMPTZ(3) NOT NULL,
    "team_index" INTEGER NOT NULL,
    "team_rank" INTEGER NOT NULL,
    "outcome" "Outcome" NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "predicted_win" DOUBLE PRECISION NOT NULL,
    "mu_before" DOUBLE PRECISION NOT NULL,
    "sigma_before" DOUBLE PRECISION NOT NULL,
    "mu_after" DOUBLE PRECISION NOT NULL,
    "sigma_after" DOUBLE PRECISION NOT NULL,
    "points_before" INTEGER NOT NULL,
    "points_after" INTEGER NOT NULL,

    CONSTRAINT "match_results_pkey" PRIMARY KEY ("tenant_id","match_id","player_id")
);

-- CreateTable
CREATE TABLE "leaderboard_outbox" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "season" INTEGER NOT NULL,
    "player_ids" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "leaderboard_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "player_stats_tenant_id_player_id_idx" ON "player_stats"("tenant_id", "player_id");

-- CreateIndex
CREATE INDEX "matches_tenant_id_game_id_status_idx" ON "matches"("tenant_id", "game_id", "status");

-- CreateIndex
CREATE INDEX "match_players_tenant_id_player_id_idx" ON "match_players"("tenant_id", "player_id");

-- CreateIndex
CREATE INDEX "match_results_tenant_id_player_id_completed_at_match_id_idx" ON "match_results"("tenant_id", "player_id", "completed_at" DESC, "match_id" DESC);

-- CreateIndex
CREATE INDEX "leaderboard_outbox_created_at_idx" ON "leaderboard_outbox"("created_at");

-- AddForeignKey
ALTER TABLE "match_players" ADD CONSTRAINT "match_players_tenant_id_match_id_fkey" FOREIGN KEY ("tenant_id", "match_id") REFERENCES "matches"("tenant_id", "match_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "match_results" ADD CONSTRAINT "match_results_tenant_id_match_id_fkey" FOREIGN KEY ("tenant_id", "match_id") REFERENCES "matches"("tenant_id", "match_id") ON DELETE CASCADE ON UPDATE CASCADE;
