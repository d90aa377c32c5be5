-- AlterTable
ALTER TABLE "signing_keys" ADD COLUMN     "revoked_at" TIMESTAMPTZ(3);
