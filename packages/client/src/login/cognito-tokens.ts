import type { AccessTokens } from "../access-tokens.js";
import { LoginError } from "../errors.js";
import { type ClientHooks, safely } from "../hooks.js";
import { type AuthenticationResult, type CognitoAnswer, callCognito } from "./cognito-api.js";
import { claimSignature, clientKeyPair, clientSessionKey, srpTimestamp } from "./srp-math.js";

export type LoginFlow = "USER_PASSWORD_AUTH" | "USER_SRP_AUTH";

export interface CognitoTokensOptions {
  /** The gateway's URL; the login goes to its Cognito-compatible endpoint `<baseUrl>/auth/`. */
  baseUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** Default `USER_PASSWORD_AUTH`; `USER_SRP_AUTH` never sends the password (needs `userPoolId`). */
  flow?: LoginFlow;
  /** The tenant's user pool id (`<region>_<name>`): SRP hashes the part after `_`. */
  userPoolId?: string;
  hooks?: ClientHooks;
  /** The fraction of the IdToken's lifetime after which it is renewed (default 0.8). */
  renewAt?: number;
}

interface Session {
  idToken: string;
  refreshToken: string | undefined;
  /** When to renew (ms since the epoch): `renewAt` of the lifetime after the request was sent. */
  renewAfter: number;
}

/**
 * Tokens from the gateway's Cognito-compatible login: logs in on first use (password or SRP),
 * renews with the refresh token once `renewAt` of the IdToken's lifetime has passed, and logs in
 * again when the refresh fails. One renewal at a time, whatever the number of concurrent calls.
 */
export class CognitoTokens implements AccessTokens {
  private session: Session | undefined;
  private pending: Promise<Session> | undefined;
  private readonly flow: LoginFlow;
  private readonly renewAt: number;
  /** Logins and refreshes done, for monitoring (also reported to the logger hook). */
  readonly counts = { logins: 0, refreshes: 0, refreshFailures: 0 };

  constructor(private readonly options: CognitoTokensOptions) {
    this.flow = options.flow ?? "USER_PASSWORD_AUTH";
    this.renewAt = options.renewAt ?? 0.8;
    if (this.flow === "USER_SRP_AUTH" && !options.userPoolId?.includes("_")) {
      throw new LoginError(
        "InvalidParameterException",
        "USER_SRP_AUTH needs the tenant's userPoolId",
        undefined,
      );
    }
  }

  async current(): Promise<string> {
    const session = this.session;
    if (session && Date.now() < session.renewAfter) return session.idToken;
    this.pending ??= this.renew(session).finally(() => {
      this.pending = undefined;
    });
    return (await this.pending).idToken;
  }

  rejected(token: string): void {
    // Only the token in use: a late 401 for an older token must not throw away a fresh one.
    if (this.session?.idToken === token) this.session = { ...this.session, renewAfter: 0 };
  }

  private async renew(old: Session | undefined): Promise<Session> {
    let fresh: Session | undefined;
    if (old?.refreshToken) fresh = await this.refresh(old.refreshToken);
    fresh ??= await this.login();
    this.session = fresh;
    return fresh;
  }

  private async refresh(refreshToken: string): Promise<Session | undefined> {
    const sent = Date.now();
    try {
      const answer = await callCognito(this.options.baseUrl, "InitiateAuth", {
        AuthFlow: "REFRESH_TOKEN_AUTH",
        ClientId: this.options.clientId,
        AuthParameters: { REFRESH_TOKEN: refreshToken },
      });
      this.counts.refreshes += 1;
      safely(this.options.hooks?.logger?.debug, "IdToken refreshed", { username: this.options.username });
      // Cognito answers a refresh without a new refresh token: the old one stays valid.
      return this.sessionOf(answer, sent, refreshToken);
    } catch (error) {
      this.counts.refreshFailures += 1;
      safely(this.options.hooks?.logger?.warn, "refresh failed; logging in again", {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  private async login(): Promise<Session> {
    const sent = Date.now();
    const answer = this.flow === "USER_SRP_AUTH" ? await this.srpLogin() : await this.passwordLogin();
    this.counts.logins += 1;
    safely(this.options.hooks?.logger?.info, "logged in", {
      username: this.options.username,
      flow: this.flow,
    });
    return this.sessionOf(answer, sent, undefined);
  }

  private passwordLogin(): Promise<CognitoAnswer> {
    const { clientId, username, password } = this.options;
    return callCognito(this.options.baseUrl, "InitiateAuth", {
      AuthFlow: "USER_PASSWORD_AUTH",
      ClientId: clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    });
  }

  private async srpLogin(): Promise<CognitoAnswer> {
    const { baseUrl, clientId, username, password } = this.options;
    const poolName = (this.options.userPoolId as string).split("_")[1] as string;
    const { a, A } = clientKeyPair();
    const challenge = await callCognito(baseUrl, "InitiateAuth", {
      AuthFlow: "USER_SRP_AUTH",
      ClientId: clientId,
      AuthParameters: { USERNAME: username, SRP_A: A.toString(16) },
    });
    const params = challenge.ChallengeParameters ?? {};
    if (
      challenge.ChallengeName !== "PASSWORD_VERIFIER" ||
      !params.SRP_B ||
      !params.SALT ||
      !params.SECRET_BLOCK
    ) {
      throw new LoginError(
        "UnexpectedChallenge",
        `expected PASSWORD_VERIFIER, got ${challenge.ChallengeName}`,
        200,
      );
    }
    const userId = params.USER_ID_FOR_SRP ?? username;
    const key = clientSessionKey(a, A, {
      poolName,
      userId,
      password,
      saltHex: params.SALT,
      B: BigInt(`0x${params.SRP_B}`),
    });
    const timestamp = srpTimestamp();
    return callCognito(baseUrl, "RespondToAuthChallenge", {
      ChallengeName: "PASSWORD_VERIFIER",
      ClientId: clientId,
      ...(challenge.Session ? { Session: challenge.Session } : {}),
      ChallengeResponses: {
        USERNAME: params.USERNAME ?? userId,
        PASSWORD_CLAIM_SECRET_BLOCK: params.SECRET_BLOCK,
        PASSWORD_CLAIM_SIGNATURE: claimSignature(key, {
          poolName,
          userId,
          secretBlock: params.SECRET_BLOCK,
          timestamp,
        }),
        TIMESTAMP: timestamp,
      },
    });
  }

  private sessionOf(answer: CognitoAnswer, sent: number, keptRefreshToken: string | undefined): Session {
    const result: AuthenticationResult | undefined = answer.AuthenticationResult;
    if (!result?.IdToken) {
      throw new LoginError("UnexpectedChallenge", `no tokens in the answer (${answer.ChallengeName})`, 200);
    }
    return {
      idToken: result.IdToken,
      refreshToken: result.RefreshToken ?? keptRefreshToken,
      renewAfter: sent + result.ExpiresIn * 1000 * this.renewAt,
    };
  }
}
