import {
  toFieldErrors,
  type Validator,
  validateInitiateAuthRequest,
  validateRespondToAuthChallengeRequest,
} from "@arena/contracts";
import { type Request, Router } from "express";
import { AMZ_JSON, CognitoError, type LoginOutcomes } from "./cognito-errors.js";
import type { IdentityStore, LoginClient } from "./identity-store.js";
import type { LoginFlows } from "./login-flows.js";
import type { SrpLogin } from "./srp-login.js";

export const INITIATE_AUTH_TARGET = "AWSCognitoIdentityProviderService.InitiateAuth";
export const RESPOND_TO_AUTH_CHALLENGE_TARGET = "AWSCognitoIdentityProviderService.RespondToAuthChallenge";

export interface CognitoRoutesDeps {
  identity: IdentityStore;
  flows: LoginFlows;
  srp: SrpLogin;
  outcomes: LoginOutcomes;
}

/**
 * `POST /auth` (and `/auth/`, where the AWS SDK posts): Cognito's InitiateAuth, wire-compatible,
 * for USER_PASSWORD_AUTH, USER_SRP_AUTH and REFRESH_TOKEN_AUTH, and RespondToAuthChallenge for
 * USER_SRP_AUTH's PASSWORD_VERIFIER challenge. The operation is the `X-Amz-Target` header.
 */
export function cognitoRoutes({ identity, flows, srp, outcomes }: CognitoRoutesDeps): Router {
  const router = Router();
  router.post("/", async (req, res) => {
    const target = operationOf(req);
    const operation = target.slice(target.indexOf(".") + 1);
    req.log.debug({ body: req.body }, `${operation} request`);
    let answer: object;
    if (target === INITIATE_AUTH_TARGET) {
      const body = parseRequest(validateInitiateAuthRequest, req.body);
      const client = await findClient(identity, body.ClientId);
      if (body.AuthFlow === "USER_PASSWORD_AUTH") answer = await flows.password(req, body, client);
      else if (body.AuthFlow === "USER_SRP_AUTH") answer = await srp.challenge(body, client);
      else answer = await flows.refresh(body);
    } else {
      const body = parseRequest(validateRespondToAuthChallengeRequest, req.body);
      answer = await srp.respond(req, body, await findClient(identity, body.ClientId));
    }
    req.log.debug({ answer }, `${operation} answer`);
    // A challenge is a step of a login, not a login: counted apart from the successes.
    outcomes.inc({ outcome: "ChallengeName" in answer ? "challenge" : "success" });
    res.setHeader("x-amzn-requestid", req.id);
    res.setHeader("Cache-Control", "no-store");
    res.status(200).type(AMZ_JSON).send(JSON.stringify(answer));
  });
  return router;
}

/** InitiateAuth or RespondToAuthChallenge, in Cognito's media type (or plain JSON). */
function operationOf(req: Request): string {
  const target = req.get("x-amz-target");
  if (target !== INITIATE_AUTH_TARGET && target !== RESPOND_TO_AUTH_CHALLENGE_TARGET) {
    throw new CognitoError(
      "UnknownOperationException",
      `Unsupported operation ${JSON.stringify(target ?? "")}; only ${INITIATE_AUTH_TARGET} and ${RESPOND_TO_AUTH_CHALLENGE_TARGET} are served`,
    );
  }
  if (!req.is([AMZ_JSON, "application/json"])) {
    throw new CognitoError("InvalidParameterException", `Content-Type must be ${AMZ_JSON}`);
  }
  return target;
}

async function findClient(identity: IdentityStore, clientId: string): Promise<LoginClient> {
  const client = await identity.findClient(clientId);
  if (!client) {
    throw new CognitoError("ResourceNotFoundException", `User pool client ${clientId} does not exist.`);
  }
  return client;
}

/** The body, or an InvalidParameterException worded as Cognito words it. */
function parseRequest<T>(validate: Validator<T>, body: unknown): T {
  if (validate(body)) return body;
  const errors = toFieldErrors(validate.errors);
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
