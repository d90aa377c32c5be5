import { prismaSigningKeyStore, type SigningKeyStore } from "@arena/signing-keys";
import type { Database } from "../db.js";

/** The HKDF salt of the gateway's sealing key; changing it would orphan every stored key. */
export const GATEWAY_SEALING_SALT = "arena-gateway";

// Any constant: serialises key creation across the gateway's replicas (pg_advisory_xact_lock).
const KEY_CREATION_LOCK = 0x476174_4b6579n;

/** The token signing keys in the gateway database's `signing_keys` table. */
export const gatewaySigningKeyStore = (db: Database): SigningKeyStore =>
  prismaSigningKeyStore(db, KEY_CREATION_LOCK);
