-- CreateEnum
CREATE TYPE "QueueState" AS ENUM ('waiting', 'matched');

-- CreateEnum
CREATE TYPE "BackfillState" AS ENUM ('searching', 'delivered', 'cancelled', 'timed-out');

-- AlterTable
ALTER TABLE "match_players" ADD COLUMN     "joined_at" TIMESTAMPTZ(3),
ADD COLUMN     "party_name" TEXT,
ADD COLUMN     "servers" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "matches" ADD COLUMN     "acked_at" TIMESTAMPTZ(3),
ADD COLUMN     "confirm_by" TIMESTAMPTZ(3),
ADD COLUMN     "pushed_to" TEXT;

-- CreateTable
CREATE TABLE "queue_players" (
    "tenant_id" TEXT NOT NULL,
    "player_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "party_name" TEXT,
    "reference" TEXT,
    "servers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "joined_at" TIMESTAMPTZ(3) NOT NULL,
    "state" "QueueState" NOT NULL DEFAULT 'waiting',
    "match_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "queue_players_pkey" PRIMARY KEY ("tenant_id","player_id")
);

-- CreateTable
CREATE TABLE "backfill_requests" (
    "tenant_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "match_id" TEXT NOT NULL,
    "game_id" TEXT NOT NULL,
    "dropped_player_id" TEXT NOT NULL,
    "team" INTEGER NOT NULL,
    "state" "BackfillState" NOT NULL,
    "replacement_id" TEXT,
    "replacement_reference" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "backfill_requests_pkey" PRIMARY KEY ("tenant_id","request_id")
);

-- CreateIndex
CREATE INDEX "queue_players_tenant_id_game_id_state_joined_at_idx" ON "queue_players"("tenant_id", "game_id", "state", "joined_at");

-- CreateIndex
CREATE INDEX "queue_players_tenant_id_match_id_idx" ON "queue_players"("tenant_id", "match_id");

-- CreateIndex
CREATE INDEX "backfill_requests_tenant_id_match_id_idx" ON "backfill_requests"("tenant_id", "match_id");

-- CreateIndex
CREATE INDEX "backfill_requests_state_expires_at_idx" ON "backfill_requests"("state", "expires_at");

-- CreateIndex
CREATE INDEX "matches_confirm_by_idx" ON "matches"("confirm_by");

-- CreateIndex
CREATE INDEX "matches_tenant_id_pushed_to_idx" ON "matches"("tenant_id", "pushed_to");

-- One active request per dropped seat (apps/stats/README.md): a new request for the seat cancels the old one
-- first, and this index makes a race between two new requests a conflict, not two searches.
CREATE UNIQUE INDEX "backfill_requests_one_searching_per_seat"
    ON "backfill_requests" ("tenant_id", "match_id", "dropped_player_id")
    WHERE "state" = 'searching';
