import { type ErrorCode, errorCodeInfo, type FieldError } from "@arena/contracts";

export interface AppErrorOptions {
  cause?: unknown;
  /** Field errors, each with the JSON pointer of the bad field. */
  errors?: FieldError[];
  /** Extra problem members (RFC 9457 extensions), e.g. `limit` or `checks`. */
  extensions?: Record<string, unknown>;
  /** Response headers, e.g. `Retry-After` or `Allow`. */
  headers?: Record<string, string>;
}

/** The one error type handlers throw; the error middleware turns it into a problem+json answer. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = errorCodeInfo[code].status;
    this.detail = detail;
    this.errors = options.errors;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }

  static validation(errors: FieldError[], detail?: string): AppError {
    const summary = errors.map((e) => `${e.pointer || "(body)"} ${e.detail}`).join("; ");
    return new AppError("VALIDATION_FAILED", detail ?? `Invalid request: ${summary}`, { errors });
  }
}
