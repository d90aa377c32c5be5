import { createHash } from "node:crypto";
import type { CreatedClient, Tenant, User, UserRole } from "@arena/contracts";
import type { Clock } from "../clock.js";
import type { Database } from "../db.js";
import { Prisma } from "../generated/prisma/client.js";
import { newClientId, newId, newSecretToken } from "../ids.js";
import type { SrpVerifier } from "./srp.js";
import { poolNameOf, type UserPools, userPoolId, userPoolName } from "./user-pools.js";

/** What a login needs to know about a user. */
export interface LoginUser {
  id: string;
  tenantId: string;
  username: string;
  role: UserRole;
  passwordHash: string;
  /** Null for a user created before SRP, until its next password login. */
  srp: SrpVerifier | null;
  disabled: boolean;
}

/** An app client and what a login through it needs of its tenant. */
export interface LoginClient {
  clientId: string;
  tenantId: string;
  /** The name part of the tenant's user pool id, which SRP proofs hash. */
  poolName: string;
}

export interface RefreshTokenRecord {
  user: LoginUser;
  clientId: string;
  expiresAt: Date;
  revoked: boolean;
}

/** Usernames are matched without regard to case, so `Server-EU` and `server-eu` are one user. */
export const normalizeUsername = (username: string) => username.normalize("NFC").toLowerCase();
/**
 * A username as login throttling counts it: NFKC with case folding (upper- then lower-casing, which
 * also folds `ß` to `ss`), taken of the lookup form, so every spelling that logs in as a user counts
 * against that user. Names that only look alike (`ﬁx` and `fix`) share a count, never a login.
 */
export const canonicalUsername = (username: string) =>
  normalizeUsername(username).normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

type UserRow = {
  id: string;
  tenantId: string;
  username: string;
  role: UserRole;
  passwordHash: string;
  srpSalt: string | null;
  srpVerifier: string | null;
  disabledAt: Date | null;
  createdAt: Date;
};

const toLoginUser = (row: UserRow): LoginUser => ({
  id: row.id,
  tenantId: row.tenantId,
  username: row.username,
  role: row.role,
  passwordHash: row.passwordHash,
  srp:
    row.srpSalt !== null && row.srpVerifier !== null
      ? { salt: row.srpSalt, verifier: row.srpVerifier }
      : null,
  disabled: row.disabledAt !== null,
});

export const toUser = (row: UserRow): User => ({
  username: row.username,
  role: row.role,
  tenantId: row.tenantId,
  disabled: row.disabledAt !== null,
  createdAt: row.createdAt.toISOString(),
});

type TenantRow = { id: string; name: string; createdAt: Date; userPoolName: string | null };

const isUniqueViolation = (err: unknown) =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";

/** Tenants, app clients, users and refresh tokens in the gateway's PostgreSQL. */
export class IdentityStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly userPools: UserPools,
  ) {}

  private toTenant(row: TenantRow): Tenant {
    return {
      tenantId: row.id,
      name: row.name,
      userPoolId: userPoolId(this.userPools, poolNameOf(row)),
      createdAt: row.createdAt.toISOString(),
    };
  }

  /** The tenant's user pool id (`<region>_<name>`), or undefined when there is no such tenant. */
  async userPoolId(tenantId: string): Promise<string | undefined> {
    const name = await this.userPoolName(tenantId);
    return name === undefined ? undefined : userPoolId(this.userPools, name);
  }

  /** The name part of the tenant's user pool id, or undefined when there is no such tenant. */
  async userPoolName(tenantId: string): Promise<string | undefined> {
    const row = await this.db.tenant.findUnique({
      where: { id: tenantId },
      select: { id: true, userPoolName: true },
    });
    return row ? poolNameOf(row) : undefined;
  }

  /** A new tenant, or "exists" when the id is taken. */
  async createTenant(tenantId: string, name: string): Promise<Tenant | "exists"> {
    try {
      return this.toTenant(
        await this.db.tenant.create({
          data: { id: tenantId, name, userPoolName: userPoolName(tenantId), createdAt: this.clock.now() },
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err)) return "exists";
      throw err;
    }
  }

  async listTenants(): Promise<Tenant[]> {
    return (await this.db.tenant.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map((row) =>
      this.toTenant(row),
    );
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    return (await this.db.tenant.count({ where: { id: tenantId } })) > 0;
  }

  /** A new app client of the tenant; undefined when the tenant does not exist. */
  async createClient(tenantId: string, name: string): Promise<CreatedClient | undefined> {
    if (!(await this.tenantExists(tenantId))) return undefined;
    const row = await this.db.appClient.create({
      data: { id: newClientId(), tenantId, name, createdAt: this.clock.now() },
    });
    return { clientId: row.id, name: row.name, tenantId: row.tenantId };
  }

  async listClients(tenantId: string): Promise<CreatedClient[]> {
    const rows = await this.db.appClient.findMany({
      where: { tenantId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map((row) => ({ clientId: row.id, name: row.name, tenantId: row.tenantId }));
  }

  async findClient(clientId: string): Promise<LoginClient | undefined> {
    const row = await this.db.appClient.findUnique({
      where: { id: clientId },
      include: { tenant: { select: { id: true, userPoolName: true } } },
    });
    return row ? { clientId: row.id, tenantId: row.tenantId, poolName: poolNameOf(row.tenant) } : undefined;
  }

  /** A new user; "no-tenant" or "username-taken" (usernames are unique across tenants). */
  async createUser(
    tenantId: string,
    user: { username: string; role: UserRole; passwordHash: string; srp: SrpVerifier },
  ): Promise<User | "no-tenant" | "username-taken"> {
    if (!(await this.tenantExists(tenantId))) return "no-tenant";
    try {
      const row = await this.db.user.create({
        data: {
          id: newId("usr"),
          tenantId,
          username: user.username,
          usernameNormalized: normalizeUsername(user.username),
          role: user.role,
          passwordHash: user.passwordHash,
          srpSalt: user.srp.salt,
          srpVerifier: user.srp.verifier,
          createdAt: this.clock.now(),
        },
      });
      return toUser(row);
    } catch (err) {
      if (isUniqueViolation(err)) return "username-taken";
      throw err;
    }
  }

  async listUsers(tenantId: string): Promise<User[]> {
    const rows = await this.db.user.findMany({
      where: { tenantId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toUser);
  }

  async findLoginUser(username: string): Promise<LoginUser | undefined> {
    const row = await this.db.user.findUnique({ where: { usernameNormalized: normalizeUsername(username) } });
    return row ? toLoginUser(row) : undefined;
  }

  /**
   * Gives a user created before SRP its verifier (at a password login, the one moment the gateway
   * knows the password). A verifier already there is kept: a concurrent login may have set it.
   */
  async addSrpVerifier(userId: string, srp: SrpVerifier): Promise<void> {
    await this.db.user.updateMany({
      where: { id: userId, srpVerifier: null },
      data: { srpSalt: srp.salt, srpVerifier: srp.verifier },
    });
  }

  /** The stored username of the tenant's user by that name, or undefined when it has none. */
  async tenantUsername(tenantId: string, username: string): Promise<string | undefined> {
    const row = await this.db.user.findFirst({
      where: { usernameNormalized: normalizeUsername(username), tenantId },
      select: { username: true },
    });
    return row?.username;
  }

  /** Whether a user (by id) may still act: undefined when it no longer exists. */
  async userStatus(userId: string): Promise<{ tenantId: string; disabled: boolean } | undefined> {
    const row = await this.db.user.findUnique({
      where: { id: userId },
      select: { tenantId: true, disabledAt: true },
    });
    return row ? { tenantId: row.tenantId, disabled: row.disabledAt !== null } : undefined;
  }

  /** Disables or enables a user of the tenant; undefined when the tenant has no such user. */
  async setDisabled(
    tenantId: string,
    username: string,
    disabled: boolean,
  ): Promise<(User & { id: string }) | undefined> {
    const where = { usernameNormalized: normalizeUsername(username), tenantId };
    const { count } = await this.db.user.updateMany({
      where,
      data: { disabledAt: disabled ? this.clock.now() : null },
    });
    if (count === 0) return undefined;
    const row = await this.db.user.findFirstOrThrow({ where });
    return { ...toUser(row), id: row.id };
  }

  /** A new refresh token for the user and client; the token is returned once, only its hash is kept. */
  async issueRefreshToken(userId: string, clientId: string, lifetimeMs: number): Promise<string> {
    const token = newSecretToken();
    const now = this.clock.now();
    await this.db.refreshToken.create({
      data: {
        id: newId("rtk"),
        userId,
        clientId,
        hash: hashToken(token),
        createdAt: now,
        expiresAt: new Date(now.getTime() + lifetimeMs),
      },
    });
    return token;
  }

  async findRefreshToken(token: string): Promise<RefreshTokenRecord | undefined> {
    const row = await this.db.refreshToken.findUnique({
      where: { hash: hashToken(token) },
      include: { user: true },
    });
    if (!row) return undefined;
    return {
      user: toLoginUser(row.user),
      clientId: row.clientId,
      expiresAt: row.expiresAt,
      revoked: row.revokedAt !== null,
    };
  }

  /** Revokes every live refresh token of a user of the tenant: the count, or undefined if no such user. */
  async revokeRefreshTokens(tenantId: string, username: string): Promise<number | undefined> {
    const user = await this.db.user.findFirst({
      where: { usernameNormalized: normalizeUsername(username), tenantId },
      select: { id: true },
    });
    if (!user) return undefined;
    const { count } = await this.db.refreshToken.updateMany({
      where: { userId: user.id, revokedAt: null },
      data: { revokedAt: this.clock.now() },
    });
    return count;
  }
}
