import { randomUUID } from "node:crypto";
import type { Logger } from "@arena/service-kit";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { Clock } from "../clock.js";
import type { Database } from "../db.js";
import { deriveSealingKey, open, seal } from "./sealed-box.js";

export const LEASE_ALGORITHM = "EdDSA";
// Any constant: serialises key creation across replicas (pg_advisory_xact_lock).
const KEY_CREATION_LOCK = 0x4c6963_4b6579n;

export interface SigningKeysOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** SIGNING_KEY_SECRET: seals private keys at rest. */
  secret: string;
  /** A key older than this is replaced by a new one at the next signature. */
  rotateAfterMs: number;
  /** Lease lifetime: a retired key stays published this long, so every lease it signed verifies. */
  leaseTtlMs: number;
  /** How long a replica keeps using the key it loaded before asking the database again. */
  cacheTtlMs?: number;
}

export interface ActiveSigningKey {
  kid: string;
  privateKey: CryptoKey;
  createdAt: Date;
}

/**
 * Lease signing keys, kept in PostgreSQL so every replica and every restart signs with, and
 * publishes, the same keys. The newest unretired key signs; older ones stay in the JWKS until the
 * leases they signed have expired.
 */
export class SigningKeys {
  private readonly sealingKey: Buffer;
  private readonly cacheTtlMs: number;
  private cached: { key: ActiveSigningKey; loadedAt: number } | undefined;

  constructor(private readonly options: SigningKeysOptions) {
    this.sealingKey = deriveSealingKey(options.secret);
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
  }

  /** The key to sign with now; creates the first key, or a successor when the current one is due. */
  async active(): Promise<ActiveSigningKey> {
    const now = this.options.clock.now().getTime();
    const cached = this.cached;
    if (cached && now - cached.loadedAt < this.cacheTtlMs && !this.isDue(cached.key.createdAt, now))
      return cached.key;
    const key = await this.loadOrCreate(false);
    this.cached = { key, loadedAt: now };
    return key;
  }

  /** Makes a new key the active one at once (admin rotation, or a suspected leak). */
  async rotate(): Promise<ActiveSigningKey> {
    const key = await this.loadOrCreate(true);
    this.cached = { key, loadedAt: this.options.clock.now().getTime() };
    return key;
  }

  /** The public keys verifiers need: the active ones and retired ones whose leases may still be live. */
  async publicJwks(): Promise<{ keys: JWK[] }> {
    // A replica may sign with a key for up to cacheTtlMs after another replica retired it.
    const publishedSince = new Date(
      this.options.clock.now().getTime() - this.options.leaseTtlMs - this.cacheTtlMs,
    );
    const rows = await this.options.db.signingKey.findMany({
      where: { OR: [{ retiredAt: null }, { retiredAt: { gt: publishedSince } }] },
      orderBy: { createdAt: "desc" },
    });
    return { keys: rows.map((row) => row.publicJwk as JWK) };
  }

  private isDue(createdAt: Date, now: number): boolean {
    return now - createdAt.getTime() >= this.options.rotateAfterMs;
  }

  private async loadOrCreate(force: boolean): Promise<ActiveSigningKey> {
    const { db, clock, logger } = this.options;
    return db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_CREATION_LOCK})`;
      const now = clock.now();
      const current = await tx.signingKey.findFirst({
        where: { retiredAt: null },
        orderBy: { createdAt: "desc" },
      });
      if (current && !force && !this.isDue(current.createdAt, now.getTime())) {
        try {
          const jwk = JSON.parse(open(current.sealedPrivateJwk, this.sealingKey, current.kid)) as JWK;
          const privateKey = (await importJWK(jwk, LEASE_ALGORITHM)) as CryptoKey;
          return { kid: current.kid, privateKey, createdAt: current.createdAt };
        } catch (err) {
          // SIGNING_KEY_SECRET changed: the old key cannot sign any more, but stays published.
          logger.warn(
            { kid: current.kid, err: (err as Error).message },
            "signing key cannot be unsealed; rotating",
          );
        }
      }
      const kid = randomUUID();
      const { publicKey, privateKey } = await generateKeyPair(LEASE_ALGORITHM, {
        crv: "Ed25519",
        extractable: true,
      });
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: LEASE_ALGORITHM, use: "sig" };
      const sealedPrivateJwk = seal(JSON.stringify(await exportJWK(privateKey)), this.sealingKey, kid);
      await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now } });
      await tx.signingKey.create({ data: { kid, publicJwk, sealedPrivateJwk, createdAt: now } });
      logger.info({ kid, replaced: current?.kid ?? null }, "new lease signing key is active");
      return { kid, privateKey, createdAt: now };
    });
  }
}
