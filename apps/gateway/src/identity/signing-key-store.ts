import { ID_TOKEN_LIFETIME_SECONDS } from "@arena/contracts";
import type { Clock, Logger } from "@arena/service-kit";
import {
  prismaSigningKeyStore,
  type SigningAlgorithm,
  type SigningKeyStore,
  SigningKeys,
} from "@arena/signing-keys";
import type { Database } from "../db.js";

/** The HKDF salt of the gateway's sealing key; changing it would orphan every stored key. */
const GATEWAY_SEALING_SALT = "arena-gateway";

// Any constant: serialises key creation across the gateway's replicas (pg_advisory_xact_lock).
const KEY_CREATION_LOCK = 0x476174_4b6579n;

/** The token signing keys in the gateway database's `signing_keys` table. */
const gatewaySigningKeyStore = (db: Database): SigningKeyStore =>
  prismaSigningKeyStore(db, KEY_CREATION_LOCK);

export interface GatewaySigningKeysOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** SIGNING_KEY_SECRET: seals the private halves at rest. */
  secret: string;
  /** SIGNING_KEY_ROTATION_DAYS. */
  rotationDays: number;
  /** TOKEN_SIGNING_ALGORITHM: what new keys sign with. */
  algorithm: SigningAlgorithm;
}

/** The service's and the CLI's signing keys: one key store, salt and lifetime rule. */
export function gatewaySigningKeys(options: GatewaySigningKeysOptions): SigningKeys {
  return new SigningKeys({
    store: gatewaySigningKeyStore(options.db),
    clock: options.clock,
    logger: options.logger,
    algorithm: options.algorithm,
    secret: options.secret,
    sealingSalt: GATEWAY_SEALING_SALT,
    rotateAfterMs: options.rotationDays * 86_400_000,
    // A retired key stays published until every token it signed has expired.
    signedTtlMs: ID_TOKEN_LIFETIME_SECONDS * 1000,
  });
}
