import {
  type InitiateAuthRequest,
  type InitiateAuthResponse,
  toFieldErrors,
  validateInitiateAuthRequest,
} from "@arena/contracts";
import { type Request, Router } from "express";
import type { Clock } from "../clock.js";
import { AMZ_JSON, CognitoError, type LoginOutcomes } from "./cognito-errors.js";
import type { IdentityStore, LoginUser } from "./identity-store.js";
import type { LoginThrottle } from "./login-throttle.js";
import { hashPassword, type ScryptCost, verifyPassword } from "./passwords.js";
import type { TokenService } from "./tokens.js";

export const INITIATE_AUTH_TARGET = "AWSCognitoIdentityProviderService.InitiateAuth";

export interface CognitoRoutesDeps {
  identity: IdentityStore;
  tokens: TokenService;
  throttle: LoginThrottle;
  clock: Clock;
  passwordCost: ScryptCost;
  refreshTokenLifetimeMs: number;
  outcomes: LoginOutcomes;
}

const WRONG_CREDENTIALS = "Incorrect username or password.";

/**
 * `POST /auth` (and `/auth/`, where the AWS SDK posts): Cognito's InitiateAuth, wire-compatible,
 * for USER_PASSWORD_AUTH and REFRESH_TOKEN_AUTH.
 */
export function cognitoRoutes(deps: CognitoRoutesDeps): Router {
  const flows = new LoginFlows(deps);
  const router = Router();
  router.post("/", async (req, res) => {
    requireInitiateAuth(req);
    req.log.debug({ body: req.body }, "InitiateAuth request");
    const body = parseRequest(req.body);
    const client = await deps.identity.findClient(body.ClientId);
    if (!client) {
      throw new CognitoError(
        "ResourceNotFoundException",
        `User pool client ${body.ClientId} does not exist.`,
      );
    }
    const answer =
      body.AuthFlow === "USER_PASSWORD_AUTH"
        ? await flows.password(req, body, client.tenantId)
        : await flows.refresh(body);
    req.log.debug({ answer }, "InitiateAuth answer");
    deps.outcomes.inc({ outcome: "success" });
    res.setHeader("x-amzn-requestid", req.id);
    res.setHeader("Cache-Control", "no-store");
    res.status(200).type(AMZ_JSON).send(JSON.stringify(answer));
  });
  return router;
}

/** Only InitiateAuth is served, in Cognito's media type (or plain JSON). */
function requireInitiateAuth(req: Request): void {
  if (req.get("x-amz-target") !== INITIATE_AUTH_TARGET) {
    throw new CognitoError(
      "UnknownOperationException",
      `Unsupported operation ${JSON.stringify(req.get("x-amz-target") ?? "")}; only ${INITIATE_AUTH_TARGET} is served`,
    );
  }
  if (!req.is([AMZ_JSON, "application/json"])) {
    throw new CognitoError("InvalidParameterException", `Content-Type must be ${AMZ_JSON}`);
  }
}

/** The login flows of InitiateAuth, each answering Cognito's AuthenticationResult. */
class LoginFlows {
  /** An unknown username is checked against this hash, so it costs the same scrypt time as a known one. */
  private readonly dummyHash: Promise<string>;

  constructor(private readonly deps: CognitoRoutesDeps) {
    this.dummyHash = hashPassword("arena-dummy-password-for-unknown-users", deps.passwordCost);
  }

  async password(req: Request, body: InitiateAuthRequest, tenantId: string): Promise<InitiateAuthResponse> {
    const { identity, tokens, throttle, clock } = this.deps;
    const username = body.AuthParameters.USERNAME as string;
    const admission = await throttle.admit({ tenantId, username, address: req.ip ?? "unknown" });
    if (!admission.admitted) {
      const wait = admission.retryAfterSeconds;
      throw new CognitoError("TooManyRequestsException", `Too many failed logins; retry in ${wait} s.`, wait);
    }
    let user: LoginUser | undefined;
    try {
      user = await this.check(username, body.AuthParameters.PASSWORD as string, tenantId);
    } finally {
      // The right password is no guess, even for a disabled user.
      await admission.settle(user !== undefined);
    }
    if (!user) throw new CognitoError("NotAuthorizedException", WRONG_CREDENTIALS);
    if (user.disabled) throw new CognitoError("NotAuthorizedException", "User is disabled.");
    const issued = await tokens.issue(user, body.ClientId, clock.now());
    const refreshToken = await identity.issueRefreshToken(
      user.id,
      body.ClientId,
      this.deps.refreshTokenLifetimeMs,
    );
    return authenticationResult({ ...issued, refreshToken });
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

  async refresh(body: InitiateAuthRequest): Promise<InitiateAuthResponse> {
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
}): InitiateAuthResponse {
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

/** The body, or an InvalidParameterException worded as Cognito words it. */
function parseRequest(body: unknown): InitiateAuthRequest {
  if (validateInitiateAuthRequest(body)) return body;
  const errors = toFieldErrors(validateInitiateAuthRequest.errors);
  const missing = errors.find((e) => e.detail === "is required");
  if (missing) {
    throw new CognitoError(
      "InvalidParameterException",
      `Missing required parameter ${missing.pointer.split("/").pop()}`,
    );
  }
  const summary = errors.map((e) => `${e.pointer || "(body)"} ${e.detail}`).join("; ");
  throw new CognitoError(
    "InvalidParameterException",
    `${errors.length} validation error${errors.length === 1 ? "" : "s"} detected: ${summary}`,
  );
}
