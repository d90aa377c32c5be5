import { prismaSigningKeyStore, type SigningAlgorithm, type SigningKeyStore } from "@arena/signing-keys";
import type { Database } from "../db.js";

/** The HKDF salt of the license service's sealing key; changing it would orphan every stored key. */
export const LICENSE_SEALING_SALT = "arena-license";

/**
 * Leases stay Ed25519: only the platform's own matchmaker verifies them, offline, so the
 * interoperability that makes the gateway's tokens RS256 does not apply, and small fast keys do.
 */
export const LEASE_SIGNING_ALGORITHM: SigningAlgorithm = "EdDSA";

// Any constant: serialises key creation across replicas (pg_advisory_xact_lock).
const KEY_CREATION_LOCK = 0x4c6963_4b6579n;

/** The lease signing keys in the license database's `signing_keys` table. */
export const licenseSigningKeyStore = (db: Database): SigningKeyStore =>
  prismaSigningKeyStore(db, KEY_CREATION_LOCK);
