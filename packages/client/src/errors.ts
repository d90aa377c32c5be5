import type { ErrorCode } from "./generated/operations.js";

/**
 * The errors a call can end with. An answer of the API that is an error (an RFC 9457 problem)
 * becomes an ArenaApiError carrying everything the problem says; the others say why no answer
 * came (NetworkError, DeadlineError) or why no token could be had (LoginError).
 */

/** One bad field of a request: an RFC 6901 JSON pointer into the body, query or path, and why. */
export interface FieldProblem {
  pointer: string;
  detail: string;
}

/** The API answered with an error status (after whatever retries the policy allows). */
export class ArenaApiError extends Error {
  override readonly name = "ArenaApiError";
  /**
   * The problem's machine-readable code (`VALIDATION_FAILED`, `NOT_FOUND`, `RATE_LIMITED`, ...; see
   * ERROR_CODES), `HTTP_<status>` when the answer was no problem; a newer API may add codes.
   */
  readonly code: ErrorCode | (string & {});
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** The bad fields, for a 400 (empty otherwise). */
  readonly fields: readonly FieldProblem[];
  /** The gateway's id of the request: quote it when asking the operator about a call. */
  readonly requestId: string | undefined;
  /** The problem's `type` URI. */
  readonly type: string | undefined;
  readonly operationId: string;

  constructor(operationId: string, status: number, problem: Record<string, unknown>, requestId?: string) {
    const text = (value: unknown) => (typeof value === "string" ? value : undefined);
    const title = text(problem.title) ?? `HTTP ${status}`;
    const detail = text(problem.detail) ?? title;
    super(`${operationId}: ${status} ${detail}`);
    this.operationId = operationId;
    this.status = status;
    this.code = text(problem.code) ?? `HTTP_${status}`;
    this.title = title;
    this.detail = detail;
    this.type = text(problem.type);
    this.requestId = text(problem.requestId) ?? requestId;
    this.fields = Array.isArray(problem.errors)
      ? problem.errors.filter(
          (e): e is FieldProblem =>
            typeof e === "object" &&
            e !== null &&
            typeof e.pointer === "string" &&
            typeof e.detail === "string",
        )
      : [];
  }
}

/** No answer came (connection refused or reset, DNS, TLS) and the call was not retried further. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  constructor(
    readonly operationId: string,
    cause: unknown,
  ) {
    super(
      `${operationId}: no answer from the API (${cause instanceof Error ? cause.message : String(cause)})`,
      {
        cause,
      },
    );
  }
}

/** The call's deadline passed before an answer it could return came. */
export class DeadlineError extends Error {
  override readonly name = "DeadlineError";
  constructor(
    readonly operationId: string,
    readonly deadlineMs: number,
    cause?: unknown,
  ) {
    super(`${operationId}: no answer within the deadline of ${deadlineMs} ms`, { cause });
  }
}

/** Logging in or renewing the token failed: `code` is the Cognito error type (`NotAuthorizedException`, ...). */
export class LoginError extends Error {
  override readonly name = "LoginError";
  constructor(
    readonly code: string,
    message: string,
    readonly status: number | undefined,
    cause?: unknown,
  ) {
    super(`login failed: ${code}: ${message}`, { cause });
  }
}
