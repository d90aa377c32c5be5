import type { UserRole } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import type { IdentityStore } from "../identity/identity-store.js";
import { TokenRejected, type TokenService } from "../identity/tokens.js";
import { TtlCache } from "./ttl-cache.js";

/** Who is calling: read from a verified IdToken or AccessToken. */
export interface Principal {
  userId: string;
  username: string;
  tenantId: string;
  role: UserRole;
  clientId: string;
}

declare global {
  namespace Express {
    interface Request {
      /** Set by the hosted routes (and the WebSocket upgrade) once the token is verified. */
      principal?: Principal;
    }
  }
}

export interface AuthenticatorOptions {
  tokens: TokenService;
  identity: IdentityStore;
  clock: Clock;
  /** How long a replica trusts what it read about a user being enabled. */
  userStatusCacheMs: number;
}

/** Longest accepted `Authorization` value: a gateway token is well under 2 KiB. */
const MAX_TOKEN_LENGTH = 8192;

const unauthenticated = (detail: string) =>
  new AppError("UNAUTHENTICATED", detail, {
    headers: { "WWW-Authenticate": 'Bearer realm="arena", error="invalid_token"' },
  });

/**
 * Checks gateway tokens: the signature (a published key, with its own algorithm), the expiry and issuer, the
 * audience (an app client of the token's own tenant), and that the user still exists, belongs to
 * that tenant and is not disabled. Shared by the REST middleware and the WebSocket upgrade.
 */
export class Authenticator {
  private readonly users: TtlCache<{ tenantId: string; disabled: boolean } | undefined>;
  private readonly clients: TtlCache<string | undefined>;

  constructor(private readonly options: AuthenticatorOptions) {
    this.users = new TtlCache(options.clock, options.userStatusCacheMs);
    this.clients = new TtlCache(options.clock, 60_000);
  }

  /** Whether the user still exists in its tenant and is enabled (cached as the token checks are). */
  async isActive(principal: Pick<Principal, "userId" | "tenantId">): Promise<boolean> {
    const user = await this.users.get(principal.userId, () =>
      this.options.identity.userStatus(principal.userId),
    );
    return user !== undefined && user.tenantId === principal.tenantId && !user.disabled;
  }

  /** A user's status changed on this replica (disabled, enabled): read it again next time. */
  forgetUser(userId: string): void {
    this.users.delete(userId);
  }

  /** The principal of an `Authorization` value (the token, or `Bearer <token>`); throws a 401 AppError. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === "") {
      throw unauthenticated("An IdToken is required: Authorization: <IdToken> or Bearer <IdToken>");
    }
    if (authorization.length > MAX_TOKEN_LENGTH) throw unauthenticated("The token is too long");
    const token = authorization.replace(/^\s*Bearer\s+/i, "").trim();
    let claims: Awaited<ReturnType<TokenService["verify"]>>;
    try {
      claims = await this.options.tokens.verify(token);
    } catch (err) {
      if (err instanceof TokenRejected) throw unauthenticated(err.message);
      throw err;
    }
    const { identity } = this.options;
    const clientTenant = await this.clients.get(
      claims.aud,
      async () => (await identity.findClient(claims.aud))?.tenantId,
    );
    if (clientTenant !== claims.tenant)
      throw unauthenticated("The token was not issued to an app client of its tenant");
    const user = await this.users.get(claims.sub, () => identity.userStatus(claims.sub));
    if (!user || user.tenantId !== claims.tenant) throw unauthenticated("The token's user does not exist");
    if (user.disabled) throw unauthenticated("The token's user is disabled");
    return {
      userId: claims.sub,
      username: claims["cognito:username"],
      tenantId: claims.tenant,
      role: claims.role,
      clientId: claims.aud,
    };
  }
}

/** Throws a 403 AppError unless `role` is one of `roles`. */
export function assertRole(roles: readonly UserRole[], role: UserRole | undefined): void {
  if (role === undefined || !roles.includes(role)) {
    throw new AppError(
      "FORBIDDEN",
      `This operation needs the ${roles.join(" or ")} role; the token has ${role}`,
    );
  }
}
