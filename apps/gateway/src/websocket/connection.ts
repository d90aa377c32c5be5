import type { PushSubscription } from "@arena/redis";
import type { WebSocket } from "ws";
import type { Principal } from "../access/authentication.js";

/** Close codes (RFC 6455 and ours, 4000-4999). */
export const CLOSE = {
  shutdown: 1001,
  /** Policy violation: too many malformed messages in a row. */
  policy: 1008,
  lifetime: 4000,
  userDisabled: 4001,
} as const;

/** Why a connection closed: the `reason` label of `gateway_ws_closed_total`. */
export type CloseReason =
  | "client"
  | "lifetime"
  | "user_disabled"
  | "backpressure"
  | "too_large"
  | "malformed"
  | "shutdown"
  | "error";

/**
 * One open WebSocket. The registry owns the transport fields; the dispatcher counts `inFlight` and
 * the push listener keeps `subscription`, so each part reads the others' state without a lookup.
 */
export interface Connection {
  /** `<replicaId>.<n>`: unique over every replica, the id stats offers pushes to. */
  readonly id: string;
  readonly socket: WebSocket;
  readonly principal: Principal;
  /** What `subscribe` stored; undefined until the connection subscribes. */
  subscription: PushSubscription | undefined;
  /** Messages received and not yet answered. */
  inFlight: number;
  /** Malformed messages received since the last well-formed one (the dispatcher's). */
  malformedInRow: number;
  /** Set by whoever closes the connection first; undefined while it is open (then: the client closed). */
  closeReason: CloseReason | undefined;
  lifetime: NodeJS.Timeout;
}
