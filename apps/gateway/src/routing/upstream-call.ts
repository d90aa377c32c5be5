import type { IncomingHttpHeaders } from "node:http";
import { CLIENT_CLOSED_REQUEST } from "@arena/service-kit";

/** Stats' answer read whole into one Buffer, unparsed. */
export interface WholeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One call to stats on behalf of a tenant (REST and WebSocket alike). */
export interface UpstreamCall {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path and query, e.g. `/games/ranked/players/p1?force=true`. */
  path: string;
  tenantId: string;
  /** The caller's role, when the call is made for a user (stats' own checks read it). */
  role?: string;
  requestId: string;
  prefer?: string;
  /** The body, sent unchanged with `contentType` (default application/json). */
  body?: Buffer | string;
  contentType?: string;
  /**
   * True once nobody awaits the answer any more (its client hung up): a leaderboard read still
   * waiting for its board's call is then answered `CLIENT_GONE` without being sent.
   */
  gone?: () => boolean;
}

/**
 * The answer of a read whose client left before it was sent: the service kit's status for such a
 * request (499, "client closed request"); nobody reads it.
 */
export const CLIENT_GONE: WholeAnswer = Object.freeze({
  status: CLIENT_CLOSED_REQUEST,
  headers: {},
  body: Buffer.alloc(0),
});
