import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { AppError } from "./app-error.js";
import { PROBLEM_CONTENT_TYPE, toProblem } from "./problem-response.js";

/**
 * What Node's HTTP parser refuses before any route sees the request (a request line or headers
 * over its limit, bytes that are not HTTP) is answered as every other error is: a problem+json
 * document with a code, then the connection closes. Node's own answer has no body at all.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
  const problem = toProblem(
    tooLarge
      ? new AppError("HEADERS_TOO_LARGE", "The request line or headers are larger than this service reads")
      : new AppError("MALFORMED_REQUEST", "The request is not valid HTTP/1.1"),
    randomUUID(),
  );
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
