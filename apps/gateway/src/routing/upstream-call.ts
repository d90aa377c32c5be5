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
}
