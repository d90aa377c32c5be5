import { RealtimeError } from "./errors.js";
import type { RealtimeSocket } from "./socket.js";
import type { RealtimeEnvelope } from "./types.js";

interface Pending {
  action: string;
  resolve(payload: Record<string, unknown>): void;
  reject(err: RealtimeError): void;
  timer: NodeJS.Timeout;
}

export interface RealtimeConnectionEvents {
  /** A push (`messageId: null`, or a keepAlive). */
  push(message: RealtimeEnvelope, from: RealtimeConnection): void;
  /** The socket is gone, for whatever reason; `why` is the client's own reason when it closed it. */
  closed(from: RealtimeConnection, code: number, reason: string, why: RealtimeCloseWhy | undefined): void;
}

/** Why the client itself ended a connection. */
export type RealtimeCloseWhy = "keepAliveMissed" | "handover" | "closing";

/**
 * One open socket: answers matched to their requests by messageId (each with a timeout), pushes
 * handed up, and a watchdog that cuts the socket when nothing at all came for `silenceMs`.
 */
export class RealtimeConnection {
  private readonly pending = new Map<string, Pending>();
  /** Resolved when no request awaits its answer any more. */
  private idle: Array<() => void> = [];
  /** What this connection was subscribed to (the client resubscribes only when it differs). */
  subscribed: object | undefined;
  private counter = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private why: RealtimeCloseWhy | undefined;
  private done = false;
  readonly closedPromise: Promise<void>;
  private markClosed!: () => void;

  constructor(
    readonly id: number,
    private readonly socket: RealtimeSocket,
    private readonly options: { requestTimeoutMs: number; silenceMs: number },
    private readonly events: RealtimeConnectionEvents,
  ) {
    this.closedPromise = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    socket.onMessage = (text) => this.receive(text);
    socket.onClose = (code, reason) => this.closed(code, reason);
    this.feedWatchdog();
  }

  get isOpen(): boolean {
    return !this.done && this.why === undefined;
  }

  /** Requests awaiting their answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  request(action: string, payload: object): Promise<Record<string, unknown>> {
    if (!this.isOpen)
      return Promise.reject(new RealtimeError(action, "disconnected", "The connection is closed"));
    this.counter += 1;
    const messageId = `c${this.id}-${this.counter}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(messageId);
        reject(
          new RealtimeError(
            action,
            "timeout",
            `No answer to ${action} within ${this.options.requestTimeoutMs} ms`,
          ),
        );
      }, this.options.requestTimeoutMs);
      this.pending.set(messageId, { action, resolve, reject, timer });
      try {
        this.socket.send(JSON.stringify({ action, messageId, payload }));
      } catch (err) {
        this.settle(messageId);
        reject(new RealtimeError(action, "disconnected", (err as Error).message));
      }
    });
  }

  /** Closes cleanly (1000) once the requests in flight are answered, or after `graceMs`. */
  async end(why: RealtimeCloseWhy, graceMs: number): Promise<void> {
    if (this.done) return;
    this.why ??= why;
    if (this.pending.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle.push(resolve);
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    if (this.done) return;
    this.socket.close(1000, why);
    // A peer that never answers the close frame is cut.
    const cut = setTimeout(() => this.socket.terminate(), graceMs);
    await this.closedPromise;
    clearTimeout(cut);
  }

  /** Cuts the socket at once (the watchdog, or `close()` of a connection nobody answers). */
  terminate(why: RealtimeCloseWhy): void {
    this.why ??= why;
    this.socket.terminate();
  }

  private receive(text: string): void {
    this.feedWatchdog();
    let message: RealtimeEnvelope;
    try {
      message = JSON.parse(text) as RealtimeEnvelope;
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null || typeof message.action !== "string") return;
    const pending =
      typeof message.messageId === "string" && message.action.endsWith("Response")
        ? this.settle(message.messageId)
        : undefined;
    if (pending !== undefined) {
      if (message.error) {
        pending.reject(
          new RealtimeError(pending.action, message.error.code, message.error.message, message.error.errors),
        );
      } else {
        pending.resolve(message.payload ?? {});
      }
      return;
    }
    this.events.push(message, this);
  }

  private settle(messageId: string): Pending | undefined {
    const pending = this.pending.get(messageId);
    if (pending === undefined) return undefined;
    this.pending.delete(messageId);
    clearTimeout(pending.timer);
    if (this.pending.size === 0) for (const resolve of this.idle.splice(0)) resolve();
    return pending;
  }

  private feedWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.terminate("keepAliveMissed"), this.options.silenceMs);
  }

  private closed(code: number, reason: string): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.watchdog);
    for (const id of [...this.pending.keys()]) {
      const p = this.settle(id) as Pending;
      p.reject(
        new RealtimeError(p.action, "disconnected", `The connection closed (${code}) before the answer`),
      );
    }
    this.events.closed(this, code, reason, this.why);
    this.markClosed();
  }
}
