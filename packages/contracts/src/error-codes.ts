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

/**
 * Each code's status, its title (the problem's `title`) and its meaning: when a client gets it, in
 * one sentence. The OpenAPI document and docs/api.md describe every error answer with these.
 */
export const errorCodeInfo: Readonly<Record<ErrorCode, { status: number; title: string; meaning: string }>> =
  {
    VALIDATION_FAILED: {
      status: 400,
      title: "Request validation failed",
      meaning: "a parameter or body field breaks its schema; `errors` points at each one",
    },
    MALFORMED_JSON: { status: 400, title: "Malformed JSON body", meaning: "the body is not valid JSON" },
    MALFORMED_REQUEST: {
      status: 400,
      title: "Malformed HTTP request",
      meaning: "the bytes sent are not valid HTTP/1.1; the connection closes",
    },
    HEADERS_TOO_LARGE: {
      status: 431,
      title: "Request line or headers too large",
      meaning: "the request line or headers exceed what the service reads; the connection closes",
    },
    UNSUPPORTED_MEDIA_TYPE: {
      status: 415,
      title: "Unsupported media type",
      meaning: "the body is not UTF-8 JSON, or its content encoding is not one the service reads",
    },
    PAYLOAD_TOO_LARGE: {
      status: 413,
      title: "Payload too large",
      meaning: "the body, after decompression, exceeds the service's limit",
    },
    TOO_MANY_TICKETS: {
      status: 413,
      title: "Too many tickets",
      meaning: "a matchmaking request holds more tickets than the edition allows",
    },
    UNAUTHENTICATED: {
      status: 401,
      title: "Authentication required",
      meaning: "the token is missing, malformed, expired, revoked, or its user is disabled",
    },
    FORBIDDEN: {
      status: 403,
      title: "Forbidden",
      meaning: "the token's role may not call this operation",
    },
    EDITION_REQUIRED: {
      status: 403,
      title: "License edition does not allow this",
      meaning: "the matchmaker's license edition does not include the feature asked for",
    },
    LICENSE_INVALID: {
      status: 403,
      title: "License key is not valid",
      meaning: "the license key is unknown, revoked or expired",
    },
    LICENSE_UNAVAILABLE: {
      status: 503,
      title: "License could not be confirmed",
      meaning: "the license service could not be reached and no valid lease is held",
    },
    NOT_FOUND: {
      status: 404,
      title: "Resource not found",
      meaning: "a resource the path names does not exist",
    },
    ROUTE_NOT_FOUND: { status: 404, title: "Route not found", meaning: "no operation has this path" },
    METHOD_NOT_ALLOWED: {
      status: 405,
      title: "Method not allowed",
      meaning: "the path exists but not with this method; `Allow` lists the methods",
    },
    CONFLICT: {
      status: 409,
      title: "Conflict",
      meaning: "the resource's state does not allow this now (the detail says which)",
    },
    RATE_LIMITED: {
      status: 429,
      title: "Too many requests",
      meaning: "a rate or concurrency limit is reached; retry after `Retry-After` seconds",
    },
    SERVICE_UNAVAILABLE: {
      status: 503,
      title: "Service unavailable",
      meaning: "the service is starting, draining or lost a dependency; retry",
    },
    UPSTREAM_FAILED: {
      status: 502,
      title: "Upstream service failed",
      meaning: "the service behind the gateway answered with an error or not at all",
    },
    UPSTREAM_TIMEOUT: {
      status: 504,
      title: "Upstream service timed out",
      meaning: "the service behind the gateway did not answer in time",
    },
    INTERNAL_API_VERSION_UNSUPPORTED: {
      status: 400,
      title: "Internal API version no longer supported",
      meaning:
        "internal only (stats to a gateway): the caller's internal API version is older than the oldest this release serves",
    },
    INTERNAL: {
      status: 500,
      title: "Internal server error",
      meaning: "a fault of the service; it is logged",
    },
  };

/** The `type` URI of a problem document: a stable, documented identifier per code. */
export function problemType(code: ErrorCode): string {
  return `https://arena.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`;
}
