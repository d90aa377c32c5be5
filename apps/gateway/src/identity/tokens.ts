import { randomUUID } from "node:crypto";
import {
  type GatewayTokenClaims,
  ID_TOKEN_LIFETIME_SECONDS,
  USER_ROLES,
  type UserRole,
} from "@arena/contracts";
import { SIGNING_ALGORITHMS, type SigningKeys, signJwt } from "@arena/signing-keys";
import { createLocalJWKSet, errors, type JWK, type JWTVerifyGetKey, jwtVerify } from "jose";
import type { Clock } from "../clock.js";

export interface TokenSubject {
  id: string;
  tenantId: string;
  username: string;
  role: UserRole;
}

export interface IssuedTokens {
  idToken: string;
  accessToken: string;
  expiresIn: number;
}

/** Why a token was refused; the 401 problem says it in words, tests check the reason. */
export class TokenRejected extends Error {
  constructor(
    readonly reason:
      | "malformed"
      | "signature"
      | "expired"
      | "claims"
      | "lifetime"
      | "unknown-key"
      | "algorithm",
    detail: string,
  ) {
    super(detail);
    this.name = "TokenRejected";
  }
}

/**
 * The public keys are re-read after this long, so a key another replica revoked (an emergency
 * rotation) is refused here within a second, cached tokens included. It also bounds a flood of
 * made-up `kid`s to one database read per second.
 */
const KEY_SET_TTL_MS = 1_000;

/** How far a token's `iat` may lie ahead of this replica's clock (another replica's clock may run ahead). */
const MAX_CLOCK_SKEW_SECONDS = 60;

/** How many verified tokens are remembered; when full the memory is emptied (a miss costs one verify). */
const VERIFIED_CACHE_SIZE = 5_000;

/** The published keys as a verifier reads them, when, and at which of this replica's key changes. */
interface KeySet {
  getKey: JWTVerifyGetKey;
  kids: ReadonlySet<string>;
  loadedAt: number;
  generation: number;
}

/**
 * Signs IdTokens and AccessTokens (RS256 or EdDSA as TOKEN_SIGNING_ALGORITHM says, `kid` in the
 * header) and verifies them, each with the algorithm of the published key its `kid` names.
 */
export class TokenService {
  private keySet: KeySet | undefined;
  private loading: Promise<KeySet> | undefined;
  /**
   * Tokens whose signature and claims were checked, by their exact text, with the `kid` that
   * signed them. A game server sends the same token for an hour, so the signature is checked once,
   * not on every call; the expiry, and that the key is still published, are checked on every call.
   * Only the same bytes hit, so nothing forged can.
   */
  private readonly verified = new Map<string, { claims: GatewayTokenClaims; kid: string }>();

  constructor(
    private readonly signingKeys: SigningKeys,
    private readonly clock: Clock,
    private readonly issuer: string,
    /** ID_TOKEN_SECONDS: how long the tokens issued here live. */
    private readonly lifetimeSeconds: number = ID_TOKEN_LIFETIME_SECONDS,
  ) {}

  async issue(user: TokenSubject, clientId: string, authTime: Date): Promise<IssuedTokens> {
    // Reading the published keys first drops a signing key another replica revoked (see publicJwks).
    await this.keys();
    const key = await this.signingKeys.active();
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const common = {
      iss: this.issuer,
      sub: user.id,
      aud: clientId,
      tenant: user.tenantId,
      role: user.role,
      "cognito:username": user.username,
      client_id: clientId,
      auth_time: Math.floor(authTime.getTime() / 1000),
      iat,
      exp: iat + this.lifetimeSeconds,
    };
    const sign = (claims: GatewayTokenClaims) => signJwt(key, { ...claims });
    const [idToken, accessToken] = await Promise.all([
      sign({ ...common, token_use: "id", jti: randomUUID() }),
      sign({ ...common, token_use: "access", jti: randomUUID() }),
    ]);
    return { idToken, accessToken, expiresIn: this.lifetimeSeconds };
  }

  /**
   * The claims of a token this gateway signed and that is still valid now; throws TokenRejected.
   * The audience (an app client of the token's tenant) and the user's status are the caller's checks.
   */
  async verify(token: string): Promise<GatewayTokenClaims> {
    const keys = await this.keys();
    const known = this.verified.get(token);
    if (known) {
      if (known.claims.exp * 1000 > this.clock.now().getTime() && keys.kids.has(known.kid))
        return known.claims;
      this.verified.delete(token);
    }
    const verified = await this.verifyWith(token, keys.getKey);
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
    this.verified.set(token, verified);
    return verified.claims;
  }

  private async verifyWith(
    token: string,
    getKey: JWTVerifyGetKey,
  ): Promise<{ claims: GatewayTokenClaims; kid: string }> {
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(token, getKey, {
        issuer: this.issuer,
        // Asymmetric algorithms only (never `none`, never HS*); pinnedKeys pins each key's own.
        algorithms: [...SIGNING_ALGORITHMS],
        currentDate: this.clock.now(),
        requiredClaims: ["sub", "aud", "exp", "iat", "tenant", "role", "token_use"],
      });
    } catch (err) {
      throw asRejection(err);
    }
    const { payload, protectedHeader } = verified;
    const { tenant, role, token_use: use, aud } = payload;
    if (
      typeof tenant !== "string" ||
      typeof aud !== "string" ||
      !USER_ROLES.includes(role as UserRole) ||
      (use !== "id" && use !== "access")
    ) {
      throw new TokenRejected("claims", "The token's claims are not those of a gateway token");
    }
    this.checkLifetime(payload.iat as number, payload.exp as number);
    // pinnedKeys refused a token whose header names no key.
    return { claims: payload as unknown as GatewayTokenClaims, kid: protectedHeader.kid as string };
  }

  /**
   * A token lives at most as long as the gateway may issue them for (ID_TOKEN_SECONDS is at most
   * this bound, so replicas configured with different lifetimes during a rolling change accept
   * each other's tokens), counted from an `iat` that is not in the future: whoever holds a leaked key cannot mint tokens that outlive its revocation
   * by years, nor move `iat` ahead to stretch an hour into a decade.
   */
  private checkLifetime(iat: number, exp: number): void {
    if (exp - iat > ID_TOKEN_LIFETIME_SECONDS) {
      throw new TokenRejected(
        "lifetime",
        `The token's lifetime (exp - iat) exceeds ${ID_TOKEN_LIFETIME_SECONDS} seconds`,
      );
    }
    if (iat > this.clock.now().getTime() / 1000 + MAX_CLOCK_SKEW_SECONDS) {
      throw new TokenRejected("lifetime", "The token's iat is in the future");
    }
  }

  /** The published keys, read again once KEY_SET_TTL_MS has passed or this replica changed its keys. */
  private keys(): KeySet | Promise<KeySet> {
    const current = this.keySet;
    const fresh =
      current !== undefined &&
      this.clock.now().getTime() - current.loadedAt < KEY_SET_TTL_MS &&
      current.generation === this.signingKeys.generation;
    if (fresh) return current;
    // Concurrent requests share one read.
    this.loading ??= this.loadKeys().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadKeys(): Promise<KeySet> {
    const loadedAt = this.clock.now().getTime();
    const generation = this.signingKeys.generation;
    const jwks = await this.signingKeys.publicJwks();
    const kids = new Set(jwks.keys.flatMap((key) => (key.kid === undefined ? [] : [key.kid])));
    const previous = this.keySet;
    // The same keys as before: keep the key set, and with it the keys jose has already imported.
    const getKey = previous && sameKids(previous.kids, kids) ? previous.getKey : pinnedKeys(jwks);
    this.keySet = { getKey, kids, loadedAt, generation };
    return this.keySet;
  }
}

/**
 * The published key a token's `kid` names, for the algorithm that key signs with only (its JWK's
 * `alg`): a token whose `alg` is another (EdDSA under an RSA key's kid) is refused before any
 * signature check, so no key is ever used with an algorithm it was not made for. A token must
 * name its key: with a lone published key jose would otherwise try that one.
 */
function pinnedKeys(jwks: { keys: JWK[] }): JWTVerifyGetKey {
  const algorithmOf = new Map(jwks.keys.map((key) => [key.kid, key.alg]));
  const published = createLocalJWKSet(jwks);
  return (header, token) => {
    if (typeof header.kid !== "string")
      throw new TokenRejected("malformed", "The token's header names no key (kid)");
    const algorithm = algorithmOf.get(header.kid);
    if (algorithm !== undefined && algorithm !== header.alg)
      throw new TokenRejected("algorithm", `The token's key signs with ${algorithm}, not ${header.alg}`);
    return published(header, token);
  };
}

function sameKids(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((kid) => b.has(kid));
}

function asRejection(err: unknown): TokenRejected {
  if (err instanceof TokenRejected) return err;
  if (err instanceof errors.JWTExpired) return new TokenRejected("expired", "The token has expired");
  if (err instanceof errors.JWKSNoMatchingKey)
    return new TokenRejected("unknown-key", "The token was not signed by a key of this gateway");
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new TokenRejected("algorithm", "The token's signature algorithm is not accepted");
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new TokenRejected("signature", "The token's signature is not valid");
  if (err instanceof errors.JWTClaimValidationFailed)
    return new TokenRejected("claims", `The token's claims are not valid: ${err.message}`);
  if (err instanceof errors.JOSEError) return new TokenRejected("malformed", "The token is not a valid JWT");
  throw err;
}
