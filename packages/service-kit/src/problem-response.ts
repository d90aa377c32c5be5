import { errorCodeInfo, type Problem, problemType } from "@arena/contracts";
import type { Request, Response } from "express";
import { AppError } from "./app-error.js";
import { isDependencyUnreachable } from "./unreachable.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Builds the RFC 9457 document for an error; anything that is not an AppError is an opaque 500. */
export function toProblem(err: AppError, requestId: string, instance?: string): Problem {
  const info = errorCodeInfo[err.code];
  return {
    ...err.extensions,
    type: problemType(err.code),
    title: info.title,
    status: info.status,
    detail: err.detail,
    code: err.code,
    requestId,
    ...(instance === undefined ? {} : { instance }),
    ...(err.errors === undefined ? {} : { errors: err.errors }),
  };
}

export function sendProblem(req: Request, res: Response, err: AppError): void {
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  res
    .status(err.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(toProblem(err, req.id, req.originalUrl.split("?")[0])));
}

/**
 * Maps errors raised by express/body-parser to our codes; a dependency that cannot be reached
 * (PostgreSQL stopped or restarting) becomes SERVICE_UNAVAILABLE; other unknown errors INTERNAL.
 */
export function asAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; limit?: number; message?: string; code?: unknown };
  switch (e?.type) {
    case "entity.too.large":
      return new AppError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${e.limit} bytes`, {
        extensions: { limit: e.limit },
      });
    case "entity.parse.failed":
      return new AppError("MALFORMED_JSON", `Request body is not valid JSON: ${e.message}`, {
        errors: [{ pointer: "", detail: "is not valid JSON" }],
      });
    case "encoding.unsupported":
    case "charset.unsupported":
      return new AppError("UNSUPPORTED_MEDIA_TYPE", e.message ?? "Unsupported body encoding");
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new AppError("MALFORMED_JSON", e.message ?? "Request body could not be read");
    default:
      // router 2 cannot percent-decode a path parameter (`/licenses/%E0`): the client's mistake.
      if (err instanceof URIError) {
        return new AppError("VALIDATION_FAILED", `The request path is not valid: ${e.message}`, {
          cause: err,
        });
      }
      // body-parser reports a body it could not read as an untyped 400 wrapping the cause: for
      // corrupt gzip, deflate or br data a zlib error (codes Z_*, and ERR__* from the br decoder).
      if (e?.status === 400) {
        const zlib = typeof e.code === "string" && /^(Z_|ERR__)/.test(e.code);
        const detail = zlib
          ? `Request body could not be decompressed (check Content-Encoding): ${e.message}`
          : `Request body could not be read: ${e.message ?? "unreadable"}`;
        return new AppError("MALFORMED_JSON", detail, {
          cause: err,
          errors: [{ pointer: "", detail: "could not be decoded" }],
        });
      }
      // PostgreSQL restarting or unreachable: a state that passes, not a fault in the code.
      if (isDependencyUnreachable(err)) {
        return new AppError("SERVICE_UNAVAILABLE", "A storage service cannot be reached; try again shortly", {
          cause: err,
          headers: { "Retry-After": "2" },
        });
      }
      return new AppError("INTERNAL", "An unexpected error occurred", { cause: err });
  }
}
