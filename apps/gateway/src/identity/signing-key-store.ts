import type { SigningKeyStore, StoredSigningKey } from "@arena/signing-keys";
import type { JWK } from "jose";
import type { Database } from "../db.js";

/** The HKDF salt of the gateway's sealing key; changing it would orphan every stored key. */
export const GATEWAY_SEALING_SALT = "arena-gateway";

// Any constant: serialises key creation across replicas (pg_advisory_xact_lock).
const KEY_CREATION_LOCK = 0x476174_4b6579n;

type SigningKeyRow = Omit<StoredSigningKey, "publicJwk"> & { publicJwk: unknown };
const toStored = (row: SigningKeyRow): StoredSigningKey => ({ ...row, publicJwk: row.publicJwk as JWK });

/** The token signing keys in the gateway database's `signing_keys` table. */
export function prismaSigningKeyStore(db: Database): SigningKeyStore {
  return {
    exclusively: (work) =>
      db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_CREATION_LOCK})`;
        return work({
          async current() {
            const row = await tx.signingKey.findFirst({
              where: { retiredAt: null },
              orderBy: { createdAt: "desc" },
            });
            return row ? toStored(row) : undefined;
          },
          async replaceActive({ kid, publicJwk, sealedPrivateJwk, createdAt }, now) {
            await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now } });
            await tx.signingKey.create({
              data: { kid, publicJwk: publicJwk as object, sealedPrivateJwk, createdAt },
            });
          },
        });
      }),
    async published(retiredAfter) {
      const rows = await db.signingKey.findMany({
        where: { OR: [{ retiredAt: null }, { retiredAt: { gt: retiredAfter } }] },
        orderBy: { createdAt: "desc" },
      });
      return rows.map(toStored);
    },
  };
}
