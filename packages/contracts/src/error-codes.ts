/**
 * Every machine-readable error `code` the platform answers with, its HTTP status and its title.
 * One table for all apps, the gateway's WebSocket errors (which carry the status number) and the
 * OpenAPI document. Codes are stable: clients may branch on them.
 */
export const ErrorCode = {
  VALIDATION_FAILED: "VALIDATION_FAILED",
  MALFORMED_JSON: "MALFORMED_JSON",
  MALFORMED_REQUEST: "MALFORMED_REQUEST",
  HEADERS_TOO_LARGE: "HEADERS_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  TOO_MANY_TICKETS: "TOO_MANY_TICKETS",
  UNAUTHENTICATED: "UNAUTHENTICATED",
  FORBIDDEN: "FORBIDDEN",
  EDITION_REQUIRED: "EDITION_REQUIRED",
  LICENSE_INVALID: "LICENSE_INVALID",
  LICENSE_UNAVAILABLE: "LICENSE_UNAVAILABLE",
  NOT_FOUND: "NOT_FOUND",
  ROUTE_NOT_FOUND: "ROUTE_NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  CONFLICT: "CONFLICT",
  RATE_LIMITED: "RATE_LIMITED",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  UPSTREAM_FAILED: "UPSTREAM_FAILED",
  UPSTREAM_TIMEOUT: "UPSTREAM_TIMEOUT",
  INTERNAL_API_VERSION_UNSUPPORTED: "INTERNAL_API_VERSION_UNSUPPORTED",
  INTERNAL: "INTERNAL",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const errorCodeInfo: Readonly<Record<ErrorCode, { status: number; title: string }>> = {
  VALIDATION_FAILED: { status: 400, title: "Request validation failed" },
  MALFORMED_JSON: { status: 400, title: "Malformed JSON body" },
  MALFORMED_REQUEST: { status: 400, title: "Malformed HTTP request" },
  HEADERS_TOO_LARGE: { status: 431, title: "Request line or headers too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Payload too large" },
  TOO_MANY_TICKETS: { status: 413, title: "Too many tickets" },
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  FORBIDDEN: { status: 403, title: "Forbidden" },
  EDITION_REQUIRED: { status: 403, title: "License edition does not allow this" },
  LICENSE_INVALID: { status: 403, title: "License key is not valid" },
  LICENSE_UNAVAILABLE: { status: 503, title: "License could not be confirmed" },
  NOT_FOUND: { status: 404, title: "Resource not found" },
  ROUTE_NOT_FOUND: { status: 404, title: "Route not found" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  CONFLICT: { status: 409, title: "Conflict" },
  RATE_LIMITED: { status: 429, title: "Too many requests" },
  SERVICE_UNAVAILABLE: { status: 503, title: "Service unavailable" },
  UPSTREAM_FAILED: { status: 502, title: "Upstream service failed" },
  UPSTREAM_TIMEOUT: { status: 504, title: "Upstream service timed out" },
  INTERNAL_API_VERSION_UNSUPPORTED: { status: 400, title: "Internal API version no longer supported" },
  INTERNAL: { status: 500, title: "Internal server error" },
};

/** The `type` URI of a problem document: a stable, documented identifier per code. */
export function problemType(code: ErrorCode): string {
  return `https://arena.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`;
}
