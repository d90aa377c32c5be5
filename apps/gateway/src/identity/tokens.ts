import { randomUUID } from "node:crypto";
import {
  type GatewayTokenClaims,
  ID_TOKEN_LIFETIME_SECONDS,
  USER_ROLES,
  type UserRole,
} from "@arena/contracts";
import { SIGNING_ALGORITHM, type SigningKeys } from "@arena/signing-keys";
import { createLocalJWKSet, errors, type JWTVerifyGetKey, jwtVerify, SignJWT } from "jose";
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
    readonly reason: "malformed" | "signature" | "expired" | "claims" | "unknown-key" | "algorithm",
    detail: string,
  ) {
    super(detail);
    this.name = "TokenRejected";
  }
}

/** The public keys, re-read after this long, or sooner when a token names a `kid` not yet seen. */
const KEY_SET_TTL_MS = 60_000;
/** At most one re-read per this interval: a flood of made-up `kid`s cannot flood the database. */
const KEY_SET_MIN_REFRESH_MS = 1_000;

/** How many verified tokens are remembered; when full the memory is emptied (a miss costs one verify). */
const VERIFIED_CACHE_SIZE = 5_000;

/** Signs IdTokens and AccessTokens (EdDSA, `kid` in the header) and verifies them. */
export class TokenService {
  private keySet: { getKey: JWTVerifyGetKey; loadedAt: number } | undefined;
  /**
   * Tokens whose signature and claims were checked, by their exact text. A game server sends the
   * same token for an hour, so the signature is checked once, not on every call; the expiry is
   * still checked on every call. Only the same bytes hit, so nothing forged can.
   */
  private readonly verified = new Map<string, GatewayTokenClaims>();

  constructor(
    private readonly signingKeys: SigningKeys,
    private readonly clock: Clock,
    private readonly issuer: string,
  ) {}

  async issue(user: TokenSubject, clientId: string, authTime: Date): Promise<IssuedTokens> {
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
      exp: iat + ID_TOKEN_LIFETIME_SECONDS,
    };
    const sign = (claims: GatewayTokenClaims) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: "JWT" })
        .sign(key.privateKey);
    const [idToken, accessToken] = await Promise.all([
      sign({ ...common, token_use: "id", jti: randomUUID() }),
      sign({ ...common, token_use: "access", jti: randomUUID() }),
    ]);
    return { idToken, accessToken, expiresIn: ID_TOKEN_LIFETIME_SECONDS };
  }

  /**
   * The claims of a token this gateway signed and that is still valid now; throws TokenRejected.
   * The audience (an app client of the token's tenant) and the user's status are the caller's checks.
   */
  async verify(token: string): Promise<GatewayTokenClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > this.clock.now().getTime()) return known;
      this.verified.delete(token);
    }
    const claims = await this.verifyUncached(token);
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  private async verifyUncached(token: string): Promise<GatewayTokenClaims> {
    const keys = await this.keys(false);
    try {
      return await this.verifyWith(token, keys.getKey);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw asRejection(err);
    }
    // A key created by another replica since the last read: read once more, then give up.
    const refreshed = await this.keys(true);
    try {
      return await this.verifyWith(token, refreshed.getKey);
    } catch (err) {
      throw asRejection(err);
    }
  }

  private async verifyWith(token: string, getKey: JWTVerifyGetKey): Promise<GatewayTokenClaims> {
    const { payload } = await jwtVerify(token, getKey, {
      issuer: this.issuer,
      algorithms: [SIGNING_ALGORITHM],
      currentDate: this.clock.now(),
      requiredClaims: ["sub", "aud", "exp", "iat", "tenant", "role", "token_use"],
    });
    const { tenant, role, token_use: use, aud } = payload;
    if (
      typeof tenant !== "string" ||
      typeof aud !== "string" ||
      !USER_ROLES.includes(role as UserRole) ||
      (use !== "id" && use !== "access")
    ) {
      throw new TokenRejected("claims", "The token's claims are not those of a gateway token");
    }
    return payload as unknown as GatewayTokenClaims;
  }

  private async keys(refresh: boolean) {
    const now = this.clock.now().getTime();
    const current = this.keySet;
    const stale = !current || now - current.loadedAt >= KEY_SET_TTL_MS;
    const mayRefresh = !current || now - current.loadedAt >= KEY_SET_MIN_REFRESH_MS;
    if (current && !stale && !(refresh && mayRefresh)) return current;
    const jwks = await this.signingKeys.publicJwks();
    this.keySet = { getKey: createLocalJWKSet(jwks), loadedAt: now };
    return this.keySet;
  }
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
