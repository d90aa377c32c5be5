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
  const { identity, tokens, throttle, clock } = deps;
  // An unknown username is checked against this hash, so it costs the same scrypt time as a known one.
  const dummyHash = hashPassword("arena-dummy-password-for-unknown-users", deps.passwordCost);

  const passwordLogin = async (req: Request, body: InitiateAuthRequest, tenantId: string) => {
    const username = body.AuthParameters.USERNAME as string;
    const password = body.AuthParameters.PASSWORD as string;
    const address = req.ip ?? "unknown";
    const wait = await throttle.blockedFor(username, address);
    if (wait > 0) {
      throw new CognitoError("TooManyRequestsException", `Too many failed logins; retry in ${wait} s.`, wait);
    }
    const user = await identity.findLoginUser(username);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
    // A user of another tenant is as unknown to this client as a missing one, and answered alike.
    if (!user || !matches || user.tenantId !== tenantId) {
      await throttle.recordFailure(username, address);
      throw new CognitoError("NotAuthorizedException", WRONG_CREDENTIALS);
    }
    if (user.disabled) throw new CognitoError("NotAuthorizedException", "User is disabled.");
    await throttle.recordSuccess(username);
    const issued = await tokens.issue(user, body.ClientId, clock.now());
    const refreshToken = await identity.issueRefreshToken(
      user.id,
      body.ClientId,
      deps.refreshTokenLifetimeMs,
    );
    return { ...issued, refreshToken };
  };

  const refreshLogin = async (body: InitiateAuthRequest) => {
    const record = await identity.findRefreshToken(body.AuthParameters.REFRESH_TOKEN as string);
    if (!record || record.clientId !== body.ClientId || record.expiresAt <= clock.now()) {
      throw new CognitoError("NotAuthorizedException", "Invalid Refresh Token");
    }
    if (record.revoked) throw new CognitoError("NotAuthorizedException", "Refresh Token has been revoked");
    const user: LoginUser = record.user;
    if (user.disabled) throw new CognitoError("NotAuthorizedException", "User is disabled.");
    return tokens.issue(user, body.ClientId, clock.now());
  };

  const router = Router();
  router.post("/", async (req, res) => {
    if (req.get("x-amz-target") !== INITIATE_AUTH_TARGET) {
      throw new CognitoError(
        "UnknownOperationException",
        `Unsupported operation ${JSON.stringify(req.get("x-amz-target") ?? "")}; only ${INITIATE_AUTH_TARGET} is served`,
      );
    }
    if (!req.is([AMZ_JSON, "application/json"])) {
      throw new CognitoError("InvalidParameterException", `Content-Type must be ${AMZ_JSON}`);
    }
    req.log.debug({ body: req.body }, "InitiateAuth request");
    const body = parseRequest(req.body);
    const client = await identity.findClient(body.ClientId);
    if (!client)
      throw new CognitoError(
        "ResourceNotFoundException",
        `User pool client ${body.ClientId} does not exist.`,
      );

    let answer: InitiateAuthResponse;
    if (body.AuthFlow === "USER_PASSWORD_AUTH") {
      const issued = await passwordLogin(req, body, client.tenantId);
      answer = {
        AuthenticationResult: {
          IdToken: issued.idToken,
          AccessToken: issued.accessToken,
          RefreshToken: issued.refreshToken,
          ExpiresIn: issued.expiresIn,
          TokenType: "Bearer",
        },
        ChallengeParameters: {},
      };
    } else {
      const issued = await refreshLogin(body);
      answer = {
        AuthenticationResult: {
          IdToken: issued.idToken,
          AccessToken: issued.accessToken,
          ExpiresIn: issued.expiresIn,
          TokenType: "Bearer",
        },
        ChallengeParameters: {},
      };
    }
    req.log.debug({ answer }, "InitiateAuth answer");
    deps.outcomes.inc({ outcome: "success" });
    res.setHeader("x-amzn-requestid", req.id);
    res.setHeader("Cache-Control", "no-store");
    res.status(200).type(AMZ_JSON).send(JSON.stringify(answer));
  });
  return router;
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
