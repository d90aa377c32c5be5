import { type ErrorCode, errorCodeInfo, type FieldError } from "@arena/contracts";

/** Field errors listed in one problem at most; the rest are counted (`errorCount`). */
export const MAX_FIELD_ERRORS = 100;
/** Field errors named in a problem's `detail` sentence at most. */
const MAX_SUMMARY_ERRORS = 10;

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

  /**
   * A 400 naming each bad field. The list is capped at MAX_FIELD_ERRORS (the problem then says how
   * many there were in `errorCount`) and the detail sentence at MAX_SUMMARY_ERRORS, so a body with a
   * million bad fields gets a small answer. `total` is the count when `errors` is already a prefix.
   */
  static validation(errors: FieldError[], detail?: string, total = errors.length): AppError {
    const count = Math.max(total, errors.length);
    const listed = errors.length > MAX_FIELD_ERRORS ? errors.slice(0, MAX_FIELD_ERRORS) : errors;
    const named = listed.slice(0, MAX_SUMMARY_ERRORS).map((e) => `${e.pointer || "(body)"} ${e.detail}`);
    const more = count - named.length;
    const summary = named.join("; ") + (more > 0 ? `; and ${more} more` : "");
    return new AppError("VALIDATION_FAILED", detail ?? `Invalid request: ${summary}`, {
      errors: listed,
      ...(count > listed.length ? { extensions: { errorCount: count } } : {}),
    });
  }
}
