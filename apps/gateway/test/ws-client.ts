import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
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
  static open(base: string, token: string, via: TokenVia = "query"): Promise<WsClient> {
    const socket = upgradeSocket(base, token, via);
    return new Promise((resolve, reject) => {
      const client = new WsClient(socket);
      socket.once("open", () => resolve(client));
      socket.once("unexpected-response", (_req, res) => {
        void readAnswer(res).then(({ status, text }) =>
          reject(Object.assign(new Error(`upgrade answered ${status}`), { status, body: text })),
        );
      });
      socket.once("error", reject);
    });
  }

  /**
   * The upgrade's refusal: its HTTP status, headers and problem body. `token` undefined sends no
   * credential at all (no query parameter, no header).
   */
  static async refusal(
    base: string,
    token: string | undefined,
    options: { via?: TokenVia; path?: string } = {},
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Received }> {
    const socket = upgradeSocket(base, token, options.via ?? "query", options.path);
    socket.on("error", () => {});
    return new Promise((resolve, reject) => {
      socket.once("open", () => reject(new Error("the upgrade was accepted")));
      socket.once("unexpected-response", (_req, res) => {
        void readAnswer(res).then(({ status, text }) =>
          resolve({ status, headers: res.headers, body: JSON.parse(text) }),
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

/** Where the upgrade carries the token: `?authorization=`, `Authorization: <token>` or `Bearer <token>`. */
export type TokenVia = "query" | "header" | "bearer";

function upgradeSocket(base: string, token: string | undefined, via: TokenVia, path = "/ws"): WebSocket {
  const query = via === "query" && token !== undefined ? `?authorization=${encodeURIComponent(token)}` : "";
  const headers: Record<string, string> =
    via === "query" || token === undefined
      ? {}
      : { Authorization: via === "bearer" ? `Bearer ${token}` : token };
  return new WebSocket(`${base.replace(/^http/, "ws")}${path}${query}`, { headers });
}

function readAnswer(res: IncomingMessage): Promise<{ status: number; text: string }> {
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
  });
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
