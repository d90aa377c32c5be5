import type { IncomingHttpHeaders } from "node:http";

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

/** The answer of a read whose client left before it was sent (499, nginx's "client closed request"; nobody reads it). */
export const CLIENT_GONE: WholeAnswer = Object.freeze({ status: 499, headers: {}, body: Buffer.alloc(0) });
