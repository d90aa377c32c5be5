import type { JWK } from "jose";

/** One stored signing key: the public JWK in clear, the private JWK sealed (`sealed-box.ts`). */
export interface StoredSigningKey {
  kid: string;
  publicJwk: JWK;
  sealedPrivateJwk: string;
  createdAt: Date;
  /** When a newer key took over; the key stays published until what it signed has expired. */
  retiredAt: Date | null;
  /** When an emergency rotation withdrew the key: from then on nothing it signed verifies. */
  revokedAt: Date | null;
}

/** What key creation does inside the store's one-writer transaction. */
export interface SigningKeyTransaction {
  /** The newest key that is not retired. */
  current(): Promise<StoredSigningKey | undefined>;
  /**
   * Retires every active key at `now` and stores `key` as the new active one; with `revokePrevious`
   * also revokes every earlier key, so none of them is published any more. Answers the revoked kids.
   */
  replaceActive(
    key: Omit<StoredSigningKey, "retiredAt" | "revokedAt">,
    now: Date,
    revokePrevious: boolean,
  ): Promise<string[]>;
}

/**
 * Where an app keeps its signing keys: each app implements it over its own table (license and
 * gateway have one each), so the key logic exists once and the data stays with its service.
 */
export interface SigningKeyStore {
  /**
   * Runs `work` in one transaction that holds a lock shared by every replica (an advisory lock),
   * so two replicas never create a key at the same time.
   */
  exclusively<T>(work: (tx: SigningKeyTransaction) => Promise<T>): Promise<T>;
  /** Active keys and keys retired after `retiredAfter`, newest first; never a revoked key. */
  published(retiredAfter: Date): Promise<StoredSigningKey[]>;
}
