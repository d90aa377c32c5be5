/**
 * Errors that mean a dependency (PostgreSQL above all) cannot be reached right now, as opposed to
 * a fault in the code: the answer is 503 with `Retry-After`, not 500. Recognised by shape, so the
 * kit needs neither `pg` nor Prisma: the socket errors of any client, PostgreSQL's SQLSTATEs for
 * a server shutting down, starting up or out of connections, and Prisma's wrapping of both.
 */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE", "EAI_AGAIN"]);
/** Prisma: can't reach the server, timed out reaching it, the server closed the connection. */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1017"]);
/** Prisma driver-adapter error kinds of the same. */
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);
/**
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot
 * connect now: the server is stopping or starting), 53300 (too many connections).
 */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** node-postgres's own words for a connection lost or never made (these carry no code). */
const MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Can't reach database server/;

export function isDependencyUnreachable(err: unknown, depth = 0): boolean {
  if (typeof err !== "object" || err === null || depth > 5) return false;
  const e = err as {
    code?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (typeof e.code === "string") {
    if (SOCKET_CODES.has(e.code) || PRISMA_CODES.has(e.code) || SQLSTATE.test(e.code)) return true;
  }
  if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && MESSAGES.test(e.message)) return true;
  return (
    isDependencyUnreachable(e.cause, depth + 1) ||
    isDependencyUnreachable(e.meta?.driverAdapterError, depth + 1)
  );
}
