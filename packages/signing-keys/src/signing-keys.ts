import type { JWK } from "jose";
import {
  type ActiveSigningKey,
  createKeyPair,
  type SigningAlgorithm,
  unsealPrivateKey,
} from "./key-algorithms.js";
import { deriveSealingKey } from "./sealed-box.js";
import type { SigningKeyStore, StoredSigningKey } from "./signing-key-store.js";

/** The time source; tests pass a clock they can move across rotation ages and token lifetimes. */
export interface Clock {
  now(): Date;
}

/** The two log levels key management writes (a pino logger fits). */
export interface SigningKeysLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface SigningKeysOptions {
  store: SigningKeyStore;
  clock: Clock;
  logger: SigningKeysLogger;
  /**
   * What new keys sign with. A current key of the other algorithm is replaced at the next signature
   * (and stays published until what it signed has expired), unless it was created after this
   * instance started: then a replica with the other setting made it, and both replicas sign with
   * it instead of taking turns creating keys while a changed setting rolls out.
   */
  algorithm: SigningAlgorithm;
  /** SIGNING_KEY_SECRET: seals private keys at rest. */
  secret: string;
  /** HKDF salt naming the service (`arena-license`), so each service seals with its own key. */
  sealingSalt: string;
  /** A key older than this is replaced by a new one at the next signature. */
  rotateAfterMs: number;
  /** Longest lifetime of what a key signs: a retired key stays published this long, so it all verifies. */
  signedTtlMs: number;
  /** How long a replica keeps using the key it loaded before asking the database again. */
  cacheTtlMs?: number;
}

export interface RotationOptions {
  /**
   * Emergency rotation (a key may have leaked): every earlier key leaves the JWKS at once, so
   * nothing it signed verifies any more, instead of staying published until it expires.
   */
  revokePrevious?: boolean;
}

export interface RotatedKey extends ActiveSigningKey {
  /** The kids `revokePrevious` withdrew; undefined without it. */
  revokedKids?: string[];
}

/** What a rotation answers, in the API (`RotatedSigningKey`) and the CLIs: never key material. */
export function rotatedSigningKey(key: RotatedKey): {
  kid: string;
  createdAt: string;
  revokedKids?: string[];
} {
  const { kid, createdAt, revokedKids } = key;
  return { kid, createdAt: createdAt.toISOString(), ...(revokedKids ? { revokedKids } : {}) };
}

/**
 * Signing keys, kept in the service's database so every replica and every restart signs with, and
 * publishes, the same keys. The newest unretired key signs; older ones stay in the JWKS until what
 * they signed (leases, tokens) has expired, unless an emergency rotation revoked them.
 */
export class SigningKeys {
  private readonly sealingKey: Buffer;
  private readonly cacheTtlMs: number;
  private cached: { key: ActiveSigningKey; loadedAt: number } | undefined;
  private changes = 0;

  constructor(private readonly options: SigningKeysOptions) {
    this.sealingKey = deriveSealingKey(options.secret, options.sealingSalt);
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
  }

  /**
   * Goes up whenever this instance creates or revokes keys: a verifier whose key set is older reads
   * the published keys again at once (other replicas learn of it when they next read them).
   */
  get generation(): number {
    return this.changes;
  }

  /** The key to sign with now; creates the first key, or a successor when the current one is due. */
  async active(): Promise<ActiveSigningKey> {
    const now = this.options.clock.now().getTime();
    const cached = this.cached;
    if (cached && now - cached.loadedAt < this.cacheTtlMs && !this.isDue(cached.key.createdAt, now))
      return cached.key;
    const { key } = await this.loadOrCreate(false, false);
    this.cached = { key, loadedAt: now };
    return key;
  }

  /** Makes a new key the active one at once (admin rotation, or a suspected leak: `revokePrevious`). */
  async rotate(options: RotationOptions = {}): Promise<RotatedKey> {
    const revokePrevious = options.revokePrevious === true;
    const { key, revokedKids } = await this.loadOrCreate(true, revokePrevious);
    this.cached = { key, loadedAt: this.options.clock.now().getTime() };
    if (!revokePrevious) return key;
    this.options.logger.warn({ kid: key.kid, revokedKids }, "earlier signing keys revoked");
    return { ...key, revokedKids };
  }

  /**
   * The public keys verifiers need: the active ones and retired ones whose signatures may still be
   * live, never a revoked one. A cached signing key that is no longer published (another replica
   * revoked it) is dropped, so this replica stops signing with it too.
   */
  async publicJwks(): Promise<{ keys: JWK[] }> {
    // A replica may sign with a key for up to cacheTtlMs after another replica retired it.
    const publishedSince = new Date(
      this.options.clock.now().getTime() - this.options.signedTtlMs - this.cacheTtlMs,
    );
    const rows = await this.options.store.published(publishedSince);
    const cachedKid = this.cached?.key.kid;
    if (cachedKid !== undefined && !rows.some((row) => row.kid === cachedKid)) this.cached = undefined;
    return { keys: rows.map((row) => row.publicJwk) };
  }

  private isDue(createdAt: Date, now: number): boolean {
    return now - createdAt.getTime() >= this.options.rotateAfterMs;
  }

  /**
   * Whether `current` may go on signing: until it is due, whatever its algorithm. A change of the
   * algorithm setting takes effect at the next rotation (scheduled, or `rotate`), never at once: in
   * a rolling deploy the previous release's replicas verify only the algorithm they knew, so a key
   * of the new algorithm must not sign while they may still serve.
   */
  private keeps(current: StoredSigningKey, now: number): boolean {
    return !this.isDue(current.createdAt, now);
  }

  /** The stored key to sign with, if it may go on signing and can be unsealed. */
  private async usable(current: StoredSigningKey | undefined): Promise<ActiveSigningKey | undefined> {
    if (!current || !this.keeps(current, this.options.clock.now().getTime())) return undefined;
    try {
      return await unsealPrivateKey(current, this.sealingKey);
    } catch (err) {
      // SIGNING_KEY_SECRET changed: the old key cannot sign any more, but stays published.
      this.options.logger.warn(
        { kid: current.kid, err: (err as Error).message },
        "signing key cannot be unsealed; rotating",
      );
      return undefined;
    }
  }

  private async loadOrCreate(
    force: boolean,
    revokePrevious: boolean,
  ): Promise<{ key: ActiveSigningKey; revokedKids: string[] }> {
    const { store, clock, logger, algorithm } = this.options;
    let seen: string | undefined;
    if (!force) {
      const found = await store.exclusively(async (tx) => {
        const current = await tx.current();
        return { key: await this.usable(current), kid: current?.kid };
      });
      if (found.key) return { key: found.key, revokedKids: [] };
      seen = found.kid;
    }
    // Made outside the lock: an RSA key can take a second or more on a busy machine, and the lock
    // is a transaction every replica's key creation waits on.
    const pair = await createKeyPair(algorithm, this.sealingKey);
    return store.exclusively(async (tx) => {
      const current = await tx.current();
      // Another replica made a key meanwhile: sign with it, and drop ours unstored.
      const theirs = !force && current?.kid !== seen ? await this.usable(current) : undefined;
      if (theirs) return { key: theirs, revokedKids: [] };
      const now = clock.now();
      const { kid, privateKey, publicJwk, sealedPrivateJwk } = pair;
      const revokedKids = await tx.replaceActive(
        { kid, publicJwk, sealedPrivateJwk, createdAt: now },
        now,
        revokePrevious,
      );
      this.changes++;
      logger.info({ kid, algorithm, replaced: current?.kid ?? null }, "new signing key is active");
      return { key: { kid, algorithm, privateKey, createdAt: now }, revokedKids };
    });
  }
}
