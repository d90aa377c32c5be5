import { createLogger, type RunningServer, serve } from "@arena/service-kit";
import WebSocket from "ws";
import type { Instance } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: received messages are whatever the server sent
export type Received = any;

/** A real `ws` client that keeps every message it receives. */
export class WsClient {
  readonly received: Received[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];
  private counter = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data, isBinary) => {
      this.received.push(isBinary ? { binary: data } : JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on("close", (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    socket.on("error", () => {});
  }

  /** Opens `/ws` with the token in the query (default) or the Authorization header. */
  static open(base: string, token: string, via: "query" | "header" | "bearer" = "query"): Promise<WsClient> {
    const url = `${base.replace(/^http/, "ws")}/ws${via === "query" ? `?authorization=${encodeURIComponent(token)}` : ""}`;
    const headers =
      via === "header"
        ? { Authorization: token }
        : via === "bearer"
          ? { Authorization: `Bearer ${token}` }
          : {};
    const socket = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      const client = new WsClient(socket);
      socket.once("open", () => resolve(client));
      socket.once("unexpected-response", (_req, res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          reject(
            Object.assign(new Error(`upgrade answered ${res.statusCode}`), {
              status: res.statusCode,
              body: Buffer.concat(chunks).toString(),
            }),
          ),
        );
      });
      socket.once("error", reject);
    });
  }

  /** The upgrade's refusal: its HTTP status and problem body. */
  static async refusal(
    base: string,
    token: string,
    path = "/ws",
  ): Promise<{ status: number; body: Received }> {
    const url = `${base.replace(/^http/, "ws")}${path}?authorization=${encodeURIComponent(token)}`;
    const socket = new WebSocket(url);
    socket.on("error", () => {});
    return new Promise((resolve, reject) => {
      socket.once("open", () => reject(new Error("the upgrade was accepted")));
      socket.once("unexpected-response", (_req, res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      });
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** Sends an action with a fresh messageId and resolves with its answer. */
  async request(action: string, payload: unknown): Promise<Received> {
    this.counter += 1;
    const messageId = `m${this.counter}`;
    this.send({ action, messageId, payload });
    return this.next((m) => m.messageId === messageId);
  }

  /** The first received message (from `from` on) that matches, waiting for it. */
  async next(match: (m: Received) => boolean, from = 0): Promise<Received> {
    for (;;) {
      const found = this.received.slice(from).find(match);
      if (found !== undefined) return found;
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error("closed before the message came");
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  pushes(action: string): Received[] {
    return this.received.filter((m) => m.action === action);
  }

  close(): Promise<{ code: number; reason: string }> {
    this.socket.close();
    return this.closed;
  }
}

/** Serves an instance with the kit's `serve`, its WebSocket upgrade and drain, as main.ts does. */
export async function serveInstance(instance: Instance, shutdownTimeoutMs = 5000): Promise<RunningServer> {
  const { gateway } = instance;
  return serve({
    app: gateway.app,
    port: 0,
    host: "127.0.0.1",
    logger: createLogger({ name: "gateway", level: "silent" }),
    lifecycle: gateway.lifecycle,
    shutdownTimeoutMs,
    onUpgrade: gateway.websocket.handleUpgrade,
    onShutdown: [() => gateway.websocket.drain(shutdownTimeoutMs)],
  });
}

/** Polls `condition` (state that changes asynchronously, e.g. via Redis pub/sub) for up to 10 s. */
export async function eventually(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition never held");
}
