import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import type { MatchSuggestionPayload } from "../src/realtime/index.js";

/** One connection as the peer sees it. */
export interface PeerConnection {
  id: number;
  socket: WebSocket;
  token: string;
  subscription: Record<string, unknown> | undefined;
  /** Offered here and not acknowledged: offered again elsewhere when this connection closes. */
  unacked: Map<string, MatchSuggestionPayload>;
  open: boolean;
}

/**
 * A real `ws` server speaking the gateway's protocol, as small as the client's tests need: token
 * check at the upgrade (401 otherwise), `subscribe`, `matchSuggestionDelivery`, and stats' rule that
 * what a closed connection never acknowledged is offered again to another subscribed connection.
 */
export class RealtimePeer {
  readonly connections: PeerConnection[] = [];
  readonly acks: string[] = [];
  /** Tokens the upgrade accepts. */
  readonly validTokens = new Set<string>(["good"]);
  /** Answers for other actions (default: an empty payload); `null` leaves the request unanswered. */
  answers: Record<string, object | null> = {};
  private waiters: Array<() => void> = [];
  private readonly http: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private backlog: MatchSuggestionPayload[] = [];

  private constructor() {
    this.http = createServer((_, res) => res.writeHead(404).end());
    this.http.on("upgrade", (req, socket, head) => {
      const token = String(
        req.headers.authorization ?? new URL(req.url ?? "/", "http://x").searchParams.get("authorization"),
      );
      if (!this.validTokens.has(token)) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, token));
    });
  }

  static async start(): Promise<RealtimePeer> {
    const peer = new RealtimePeer();
    await new Promise<void>((resolve) => peer.http.listen(0, "127.0.0.1", resolve));
    return peer;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.http.address() as AddressInfo).port}/ws`;
  }

  get open(): PeerConnection[] {
    return this.connections.filter((c) => c.open);
  }

  /** Offers a suggestion to the newest subscribed connection, as stats picks one. */
  offer(s: MatchSuggestionPayload): void {
    const target = this.open.filter((c) => c.subscription).at(-1);
    if (target === undefined) {
      this.backlog.push(s);
      return;
    }
    this.pushTo(target, s);
  }

  pushTo(conn: PeerConnection, s: MatchSuggestionPayload): void {
    conn.unacked.set(s.match.id, s);
    this.send(conn, { action: "matchSuggestion", messageId: null, payload: s });
  }

  send(conn: PeerConnection, message: object): void {
    if (conn.open) conn.socket.send(JSON.stringify(message));
  }

  /** Resolves once `check` holds (checked after every event of the peer). */
  async until(check: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error("timed out waiting on the peer");
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private accept(socket: WebSocket, token: string): void {
    const conn: PeerConnection = {
      id: this.connections.length + 1,
      socket,
      token,
      subscription: undefined,
      unacked: new Map(),
      open: true,
    };
    this.connections.push(conn);
    socket.on("message", (data) => this.receive(conn, JSON.parse(data.toString())));
    socket.on("close", () => {
      conn.open = false;
      // stats' rule: what this connection never acknowledged goes to another subscriber.
      for (const s of conn.unacked.values()) this.offer(s);
      conn.unacked.clear();
      this.wake();
    });
    this.wake();
  }

  private receive(
    conn: PeerConnection,
    message: { action: string; messageId: string; payload: Record<string, unknown> },
  ): void {
    const { action, messageId, payload } = message;
    const answer = (p: object) => this.send(conn, { action: `${action}Response`, messageId, payload: p });
    if (action === "subscribe") {
      conn.subscription = payload;
      answer({
        gameIds: payload.gameIds,
        priority: payload.priority ?? 0,
        rateLimit: payload.rateLimit ?? null,
      });
      for (const s of this.backlog.splice(0)) this.pushTo(conn, s);
    } else if (action === "matchSuggestionDelivery") {
      this.acks.push(String(payload.matchId));
      for (const c of this.connections) c.unacked.delete(String(payload.matchId));
      answer({ gameId: payload.gameId, matchId: payload.matchId });
    } else if (this.answers[action] !== null) {
      const a = this.answers[action];
      if (a && "error" in a) this.send(conn, { action: `${action}Response`, messageId, ...a });
      else answer(a ?? {});
    }
    this.wake();
  }
}

export function suggestion(matchId: string, gameId = "duel"): MatchSuggestionPayload {
  return {
    gameId,
    match: {
      id: matchId,
      uuid: matchId,
      server: "eu-1",
      matchScore: 1,
      teams: [{ players: [{ playerId: `${matchId}-p`, reference: null }] }],
    },
  };
}
