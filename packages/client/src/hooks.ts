/**
 * What a game server can plug in to see the SDK at work: metrics it forwards to its own monitoring
 * and a logger. Every hook is optional and called synchronously; a hook that throws is ignored (a
 * broken dashboard must never break a match).
 */
export interface ClientHooks {
  metrics?: ClientMetrics;
  logger?: ClientLogger;
}

export interface ClientMetrics {
  /** One finished HTTP call (after its retries): the operation, its final status or error, and time. */
  call?(event: CallEvent): void;
  /** One attempt that is about to be retried, and why. */
  retry?(event: RetryEvent): void;
  /** The WebSocket reconnected (or is about to), and why. */
  reconnect?(event: ReconnectEvent): void;
  /** A push handed to the caller (duplicates are dropped before this and counted separately). */
  push?(event: PushEvent): void;
}

export interface CallEvent {
  operationId: string;
  /** The final HTTP status, or `"network"` when no answer came. */
  status: number | "network";
  durationMs: number;
  attempts: number;
}

export interface RetryEvent {
  operationId: string;
  attempt: number;
  reason: "status" | "network" | "token";
  status?: number;
  delayMs: number;
}

export interface ReconnectEvent {
  reason: "closed" | "error" | "keepAliveMissed" | "lifetime" | "token";
  attempt: number;
  delayMs: number;
  closeCode?: number;
}

export interface PushEvent {
  action: string;
  gameId: string;
  duplicate: boolean;
}

export interface ClientLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

/** Calls a hook, swallowing whatever it throws. */
export function safely<A extends unknown[]>(hook: ((...args: A) => void) | undefined, ...args: A): void {
  if (!hook) return;
  try {
    hook(...args);
  } catch {
    // A monitoring hook's failure is the game server's to see in its own logs, never a reason to fail a call.
  }
}
