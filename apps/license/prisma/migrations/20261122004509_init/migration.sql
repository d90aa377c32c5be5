-- CreateEnum
CREATE TYPE "Edition" AS ENUM ('community', 'advanced');

-- CreateEnum
CREATE TYPE "LicenseOrigin" AS ENUM ('registration', 'admin');

-- CreateEnum
CREATE TYPE "LicenseKeyState" AS ENUM ('active', 'pending', 'retired');

-- CreateTable
CREATE TABLE "licenses" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "email_normalized" TEXT NOT NULL,
    "edition" "Edition" NOT NULL,
    "origin" "LicenseOrigin" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "last_validated_at" TIMESTAMPTZ(3),

    CONSTRAINT "licenses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "license_keys" (
    "id" TEXT NOT NULL,
    "license_id" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "state" "LicenseKeyState" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "license_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "sealed_private_jwk" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "rate_limit_counters" (
    "bucket" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "hits" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("bucket","window_start")
);

-- CreateIndex
CREATE INDEX "licenses_email_normalized_idx" ON "licenses"("email_normalized");

-- CreateIndex
CREATE INDEX "licenses_created_at_id_idx" ON "licenses"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "license_keys_hash_key" ON "license_keys"("hash");

-- CreateIndex
CREATE INDEX "license_keys_license_id_state_idx" ON "license_keys"("license_id", "state");

-- CreateIndex
CREATE INDEX "signing_keys_retired_at_idx" ON "signing_keys"("retired_at");

-- CreateIndex
CREATE INDEX "rate_limit_counters_expires_at_idx" ON "rate_limit_counters"("expires_at");

-- AddForeignKey
ALTER TABLE "license_keys" ADD CONSTRAINT "license_keys_license_id_fkey" FOREIGN KEY ("license_id") REFERENCES "licenses"("id") ON DELETE CASCADE ON UPDATE CASCADE;
