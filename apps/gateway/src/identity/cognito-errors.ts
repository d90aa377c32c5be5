import type { CognitoErrorType } from "@arena/contracts";
import { asAppError, type Counter } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";

/** Cognito's JSON 1.1 protocol media type: requests and answers of `POST /auth`. */
export const AMZ_JSON = "application/x-amz-json-1.1";

/** An error answered the way Cognito answers it: `{__type, message}` and `x-amzn-errortype`. */
export class CognitoError extends Error {
  constructor(
    readonly type: CognitoErrorType,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "CognitoError";
  }

  get status(): number {
    return this.type === "InternalErrorException" ? 500 : 400;
  }
}

export function sendCognitoError(req: Request, res: Response, err: CognitoError): void {
  // The AWS SDK reads the error type from this header first (the part before ':'), then from __type.
  res.setHeader("x-amzn-errortype", `${err.type}:`);
  res.setHeader("x-amzn-requestid", req.id);
  if (err.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(err.retryAfterSeconds));
  res
    .status(err.status)
    .type(AMZ_JSON)
    .send(JSON.stringify({ __type: err.type, message: err.message }));
}

/** Login outcomes for /metrics: `success` or the Cognito error type answered. */
export type LoginOutcomes = Counter<"outcome">;

/**
 * The error handler of `/auth`: whatever went wrong there (an unreadable or oversized body
 * included) is answered in Cognito's shape, never as problem+json, which the SDK could not read.
 */
export function cognitoErrorHandler(outcomes: LoginOutcomes) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    let answer: CognitoError;
    if (err instanceof CognitoError) {
      req.log.debug({ cognitoError: err.type }, err.message);
      answer = err;
    } else if (asAppError(err).status < 500) {
      // The body reader's errors (not JSON, too large, bad charset) are the client's: Cognito says so.
      answer = new CognitoError("InvalidParameterException", asAppError(err).detail);
    } else {
      req.log.error({ err }, "InitiateAuth failed");
      answer = new CognitoError("InternalErrorException", "An internal error occurred");
    }
    outcomes.inc({ outcome: answer.type });
    sendCognitoError(req, res, answer);
  };
}
