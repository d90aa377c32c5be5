import type { InitiateAuthRequest, RespondToAuthChallengeResponse } from "@arena/contracts";
import type { Request } from "express";
import type { Clock } from "../clock.js";
import { CognitoError } from "./cognito-errors.js";
import { srpVerifierOf } from "./credentials.js";
import type { IdentityStore, LoginClient, LoginUser } from "./identity-store.js";
import type { LoginAdmission, LoginThrottle } from "./login-throttle.js";
import { hashPassword, type ScryptCost, verifyPassword } from "./passwords.js";
import type { TokenService } from "./tokens.js";

export interface LoginFlowsDeps {
  identity: IdentityStore;
  tokens: TokenService;
  throttle: LoginThrottle;
  clock: Clock;
  passwordCost: ScryptCost;
  refreshTokenLifetimeMs: number;
}

export const WRONG_CREDENTIALS = "Incorrect username or password.";

/** The tokens of a login: Cognito's AuthenticationResult (a refresh token only where one was issued). */
export type AuthenticationAnswer = RespondToAuthChallengeResponse;

/**
 * Admits a login attempt of `username` through the client's tenant from the request's address,
 * runs `check` and settles the attempt with its outcome; a refused attempt is a
 * TooManyRequestsException. Every flow that checks a password (or a proof of one) goes through here.
 */
export async function throttled<T>(
  throttle: LoginThrottle,
  attempt: { req: Request; tenantId: string; username: string },
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const admission: LoginAdmission = await throttle.admit({
    tenantId: attempt.tenantId,
    username: attempt.username,
    address: attempt.req.ip ?? "unknown",
  });
  if (!admission.admitted) {
    const wait = admission.retryAfterSeconds;
    throw new CognitoError("TooManyRequestsException", `Too many failed logins; retry in ${wait} s.`, wait);
  }
  let result: T | undefined;
  try {
    result = await check();
  } finally {
    // The right password is no guess, even for a disabled user.
    await admission.settle(result !== undefined);
  }
  return result;
}

/** The password and refresh flows of InitiateAuth, and the sign-in every flow ends with. */
export class LoginFlows {
  /** An unknown username is checked against this hash, so it costs the same scrypt time as a known one. */
  private readonly dummyHash: Promise<string>;

  constructor(private readonly deps: LoginFlowsDeps) {
    this.dummyHash = hashPassword("arena-dummy-password-for-unknown-users", deps.passwordCost);
  }

  async password(
    req: Request,
    body: InitiateAuthRequest,
    client: LoginClient,
  ): Promise<AuthenticationAnswer> {
    const username = body.AuthParameters.USERNAME as string;
    const password = body.AuthParameters.PASSWORD as string;
    const user = await throttled(this.deps.throttle, { req, tenantId: client.tenantId, username }, () =>
      this.check(username, password, client.tenantId),
    );
    if (!user) throw new CognitoError("NotAuthorizedException", WRONG_CREDENTIALS);
    const answer = await this.signIn(user, client.clientId);
    // A user from before SRP gets its verifier now, the one time the gateway knows its password.
    if (user.srp === null) {
      await this.deps.identity.addSrpVerifier(
        user.id,
        srpVerifierOf(client.poolName, user.username, password),
      );
    }
    return answer;
  }

  /** The tenant's user by that name when the password is its own. */
  private async check(username: string, password: string, tenantId: string): Promise<LoginUser | undefined> {
    const found = await this.deps.identity.findLoginUser(username);
    // A user of another tenant is as unknown to this client as a missing one: its password is never
    // checked, the dummy hash is, so the answer and its timing are those of any wrong login.
    const user = found?.tenantId === tenantId ? found : undefined;
    const matches = await verifyPassword(password, user?.passwordHash ?? (await this.dummyHash));
    return matches ? user : undefined;
  }

  /**
   * A user who proved its password gets its tokens and a refresh token for the client, unless
   * disabled. The one token issuance of USER_PASSWORD_AUTH and USER_SRP_AUTH alike.
   */
  async signIn(user: LoginUser, clientId: string): Promise<AuthenticationAnswer> {
    const { identity, tokens, clock } = this.deps;
    if (user.disabled) throw new CognitoError("NotAuthorizedException", "User is disabled.");
    const issued = await tokens.issue(user, clientId, clock.now());
    const refreshToken = await identity.issueRefreshToken(
      user.id,
      clientId,
      this.deps.refreshTokenLifetimeMs,
    );
    return authenticationResult({ ...issued, refreshToken });
  }

  async refresh(body: InitiateAuthRequest): Promise<AuthenticationAnswer> {
    const { identity, tokens, clock } = this.deps;
    const record = await identity.findRefreshToken(body.AuthParameters.REFRESH_TOKEN as string);
    if (!record || record.clientId !== body.ClientId || record.expiresAt <= clock.now()) {
      throw new CognitoError("NotAuthorizedException", "Invalid Refresh Token");
    }
    if (record.revoked) throw new CognitoError("NotAuthorizedException", "Refresh Token has been revoked");
    const user: LoginUser = record.user;
    if (user.disabled) throw new CognitoError("NotAuthorizedException", "User is disabled.");
    return authenticationResult(await tokens.issue(user, body.ClientId, clock.now()));
  }
}

/** Cognito's answer to a login: the tokens (a refresh token only where one was issued). */
function authenticationResult(issued: {
  idToken: string;
  accessToken: string;
  expiresIn: number;
  refreshToken?: string;
}): AuthenticationAnswer {
  return {
    AuthenticationResult: {
      IdToken: issued.idToken,
      AccessToken: issued.accessToken,
      ...(issued.refreshToken === undefined ? {} : { RefreshToken: issued.refreshToken }),
      ExpiresIn: issued.expiresIn,
      TokenType: "Bearer",
    },
    ChallengeParameters: {},
  };
}
