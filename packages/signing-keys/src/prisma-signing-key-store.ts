import type { JWK } from "jose";
import type { SigningKeyStore, StoredSigningKey } from "./signing-key-store.js";

/** A row of a `signing_keys` table as Prisma answers it (the JWK column is untyped JSON). */
type SigningKeyRow = Omit<StoredSigningKey, "publicJwk"> & { publicJwk: unknown };

/** What the store needs of a Prisma model with the fields of StoredSigningKey. */
export interface SigningKeyModel {
  findFirst(args: {
    where: { retiredAt: null };
    orderBy: { createdAt: "desc" };
  }): PromiseLike<SigningKeyRow | null>;
  findMany(args: {
    where: { revokedAt: null; OR: [{ retiredAt: null }, { retiredAt: { gt: Date } }] };
    orderBy: { createdAt: "desc" };
  }): PromiseLike<SigningKeyRow[]>;
  updateMany(args: { where: { retiredAt: null }; data: { retiredAt: Date } }): PromiseLike<unknown>;
  updateManyAndReturn(args: {
    where: { revokedAt: null };
    data: { revokedAt: Date };
    select: { kid: true };
  }): PromiseLike<Array<{ kid: string }>>;
  create(args: {
    data: { kid: string; publicJwk: object; sealedPrivateJwk: string; createdAt: Date };
  }): PromiseLike<unknown>;
}

/** What the store needs of a Prisma client whose schema has a `SigningKey` model. */
export interface SigningKeyDatabase {
  signingKey: SigningKeyModel;
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>;
}

export interface TransactionalSigningKeyDatabase extends SigningKeyDatabase {
  $transaction<T>(work: (tx: SigningKeyDatabase) => Promise<T>): Promise<T>;
}

const toStored = (row: SigningKeyRow): StoredSigningKey => ({ ...row, publicJwk: row.publicJwk as JWK });

/**
 * The store over an app's own Prisma `SigningKey` model (license and gateway each have one).
 * `lockId` is the app's advisory lock: creation is serialised across that app's replicas.
 */
export function prismaSigningKeyStore(db: TransactionalSigningKeyDatabase, lockId: bigint): SigningKeyStore {
  return {
    exclusively: (work) =>
      db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${lockId})`;
        return work({
          async current() {
            const row = await tx.signingKey.findFirst({
              where: { retiredAt: null },
              orderBy: { createdAt: "desc" },
            });
            return row ? toStored(row) : undefined;
          },
          async replaceActive({ kid, publicJwk, sealedPrivateJwk, createdAt }, now, revokePrevious) {
            await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now } });
            const revoked = revokePrevious
              ? await tx.signingKey.updateManyAndReturn({
                  where: { revokedAt: null },
                  data: { revokedAt: now },
                  select: { kid: true },
                })
              : [];
            await tx.signingKey.create({ data: { kid, publicJwk, sealedPrivateJwk, createdAt } });
            return revoked.map((row) => row.kid);
          },
        });
      }),
    async published(retiredAfter) {
      const rows = await db.signingKey.findMany({
        where: { revokedAt: null, OR: [{ retiredAt: null }, { retiredAt: { gt: retiredAfter } }] },
        orderBy: { createdAt: "desc" },
      });
      return rows.map(toStored);
    },
  };
}
