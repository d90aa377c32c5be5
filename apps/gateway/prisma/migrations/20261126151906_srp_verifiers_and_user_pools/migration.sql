-- A busy table must not be locked for long: give up (and fail the deploy, which retries) rather
-- than queue every login behind this migration.
SET lock_timeout = '5s';
SET statement_timeout = '60s';

-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "user_pool_name" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "srp_salt" TEXT,
ADD COLUMN     "srp_verifier" TEXT;

-- Each existing tenant gets its user pool name, derived from its id with the same formula as
-- userPoolName() in src/identity/user-pools.ts: the first 12 hex digits of
-- SHA-256("arena-user-pool:" || id). Additive: a gateway older than this migration leaves the
-- column null when it creates a tenant, and the new code reads the same derived name then.
UPDATE "tenants"
SET "user_pool_name" = substr(encode(sha256(convert_to('arena-user-pool:' || "id", 'UTF8')), 'hex'), 1, 12)
WHERE "user_pool_name" IS NULL;
