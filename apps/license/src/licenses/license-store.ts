import type { Edition, LicenseSummary } from "@arena/contracts";
import type { Clock } from "../clock.js";
import type { Database, Prisma } from "../db.js";
import type { License, LicenseKey } from "../generated/prisma/client.js";
import { newId } from "../ids.js";
import { displayPrefix, generateLicenseKey, hashLicenseKey, isWellFormedLicenseKey } from "./license-key.js";
import { encodeCursor, type ListCursor } from "./list-cursor.js";

type Tx = Prisma.TransactionClient;
type LicenseWithKeys = License & { keys: LicenseKey[] };

export interface IssuedLicense {
  license: LicenseSummary;
  /** The full key: returned once, never stored. */
  licenseKey: string;
}

/** What a registration did; the HTTP answer is the same for all three. */
export type RegistrationOutcome =
  | { kind: "created"; license: LicenseSummary; licenseKey: string }
  | { kind: "reissued"; license: LicenseSummary; licenseKey: string }
  | { kind: "revoked"; licenseId: string };

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Licenses and their keys. Keys exist here only as SHA-256 hashes and display prefixes. */
export class LicenseStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async create(input: { name: string; email: string; edition: Edition }): Promise<IssuedLicense> {
    return this.db.$transaction((tx) => this.insertLicense(tx, { ...input, origin: "admin" }));
  }

  async get(id: string): Promise<LicenseSummary | undefined> {
    const row = await this.db.license.findUnique({ where: { id }, include: { keys: true } });
    return row ? toSummary(row) : undefined;
  }

  /** Newest first; the cursor names the last license of the previous page. */
  async list(
    limit: number,
    cursor: ListCursor | undefined,
  ): Promise<{ licenses: LicenseSummary[]; nextCursor: string | null }> {
    const rows = await this.db.license.findMany({
      where: cursor
        ? {
            OR: [
              { createdAt: { lt: cursor.createdAt } },
              { createdAt: cursor.createdAt, id: { lt: cursor.id } },
            ],
          }
        : {},
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
      include: { keys: true },
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      licenses: page.map(toSummary),
      nextCursor:
        rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }

  /** Changes the edition; the next validation's lease carries it. Undefined for an unknown id. */
  async updateEdition(id: string, edition: Edition): Promise<LicenseSummary | "revoked" | undefined> {
    const existing = await this.db.license.findUnique({ where: { id } });
    if (!existing) return undefined;
    if (existing.revokedAt) return "revoked";
    const row = await this.db.license.update({ where: { id }, data: { edition }, include: { keys: true } });
    return toSummary(row);
  }

  /** Revokes a license: none of its keys validates again. Idempotent; false for an unknown id. */
  async revoke(id: string): Promise<boolean> {
    const now = this.clock.now();
    const updated = await this.db.license.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: now },
    });
    if (updated.count > 0) return true;
    return (await this.db.license.count({ where: { id } })) > 0;
  }

  /**
   * A self-service registration. A new address gets a community license. A known address gets a
   * new *pending* key for its license: the current key keeps working until the pending one is first
   * used, so someone re-registering another person's address cannot break their installation.
   */
  async register(input: { name: string; email: string }): Promise<RegistrationOutcome> {
    const emailNormalized = normalizeEmail(input.email);
    return this.db.$transaction(async (tx) => {
      // One registration per address at a time, so two concurrent first registrations make one license.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${emailNormalized}, 0))`;
      const known = await tx.license.findMany({ where: { emailNormalized }, orderBy: { createdAt: "asc" } });
      if (known.length === 0) {
        const issued = await this.insertLicense(tx, {
          ...input,
          edition: "community",
          origin: "registration",
        });
        return { kind: "created", ...issued };
      }
      const license = known.find((l) => l.revokedAt === null);
      if (!license) return { kind: "revoked", licenseId: known[0]!.id };
      const now = this.clock.now();
      // Only the latest mailed key is pending; earlier unused ones stop working.
      await tx.licenseKey.updateMany({
        where: { licenseId: license.id, state: "pending" },
        data: { state: "retired", retiredAt: now },
      });
      const licenseKey = generateLicenseKey();
      await tx.licenseKey.create({
        data: { licenseId: license.id, ...keyFields(licenseKey, "pending", now) },
      });
      const row = await tx.license.findUniqueOrThrow({ where: { id: license.id }, include: { keys: true } });
      return { kind: "reissued", license: toSummary(row), licenseKey };
    });
  }

  /**
   * The license a key unlocks, or undefined for a malformed, unknown, retired or revoked key. Every
   * case hashes and looks up, so they take about the same time. The first use of a pending key makes
   * it the license's only active key.
   */
  async validateKey(licenseKey: string): Promise<{ id: string; edition: Edition } | undefined> {
    const hash = hashLicenseKey(licenseKey);
    const row = await this.db.licenseKey.findUnique({ where: { hash }, include: { license: true } });
    if (!isWellFormedLicenseKey(licenseKey) || !row || row.state === "retired" || row.license.revokedAt) {
      return undefined;
    }
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      if (row.state === "pending") {
        await tx.licenseKey.updateMany({
          where: { licenseId: row.licenseId, id: { not: row.id }, state: { in: ["active", "pending"] } },
          data: { state: "retired", retiredAt: now },
        });
      }
      await tx.licenseKey.update({ where: { id: row.id }, data: { state: "active", lastUsedAt: now } });
      await tx.license.update({ where: { id: row.licenseId }, data: { lastValidatedAt: now } });
    });
    return { id: row.license.id, edition: row.license.edition };
  }

  private async insertLicense(
    tx: Tx,
    input: { name: string; email: string; edition: Edition; origin: "admin" | "registration" },
  ): Promise<IssuedLicense> {
    const now = this.clock.now();
    const id = newId("lic");
    const licenseKey = generateLicenseKey();
    const row = await tx.license.create({
      data: {
        id,
        name: input.name,
        email: input.email.trim(),
        emailNormalized: normalizeEmail(input.email),
        edition: input.edition,
        origin: input.origin,
        createdAt: now,
        updatedAt: now,
        keys: { create: keyFields(licenseKey, "active", now) },
      },
      include: { keys: true },
    });
    return { license: toSummary(row), licenseKey };
  }
}

function keyFields(key: string, state: "active" | "pending", now: Date) {
  return { id: newId("key"), hash: hashLicenseKey(key), prefix: displayPrefix(key), state, createdAt: now };
}

function toSummary(row: LicenseWithKeys): LicenseSummary {
  const active = row.keys.filter((k) => k.state === "active").sort((a, b) => +b.createdAt - +a.createdAt)[0];
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    edition: row.edition,
    keyPrefix: active?.prefix ?? "",
    status: row.revokedAt ? "revoked" : "active",
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
