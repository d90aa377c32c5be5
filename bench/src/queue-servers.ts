import type { CompleteMatchRequest, DeliveredMatch } from "@arena/contracts";
import { Pool } from "undici";
import WebSocket from "ws";

/** What the benchmark's game servers report to the run's tally. */
export interface ServerEvents {
  /** Every answer that is not the expected success, and every unexpected close. */
  error(what: string): void;
  /** A match suggestion reached this server (pushed or fetched). */
  match(match: DeliveredMatch, transport: Transport["kind"]): void;
}

/**
 * One simulated game server's view of the hosted API: the calls it makes, over REST or over its
 * own WebSocket. Every call resolves true on success, false after reporting the error.
 */
export interface Transport {
  readonly kind: "rest" | "websocket";
  /** Queues the players; resolves when the answer is in. */
  add(playerIds: readonly string[]): Promise<boolean>;
  confirm(matchId: string): Promise<boolean>;
  complete(matchId: string, result: CompleteMatchRequest): Promise<boolean>;
  /** Stops receiving suggestions and closes the connections. */
  close(): Promise<void>;
}

/** REST: keep-alive connections to the gateway; suggestions fetched by polling `POST …/matches`. */
export class RestTransport implements Transport {
  readonly kind = "rest";
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(
    gateway: string,
    token: string,
    private readonly gameId: string,
    private readonly events: ServerEvents,
    pollMs: number,
  ) {
    this.pool = new Pool(gateway, { connections: 4 });
    this.headers = { authorization: token, "content-type": "application/json" };
    this.polling = this.poll(pollMs);
  }

  add(playerIds: readonly string[]): Promise<boolean> {
    return this.post(
      `/games/${this.gameId}/players`,
      { players: playerIds.map((playerId) => ({ playerId })) },
      204,
    );
  }

  confirm(matchId: string): Promise<boolean> {
    return this.post(`/games/${this.gameId}/matches/${matchId}/statuses/confirmed`, {}, 204);
  }

  complete(matchId: string, result: CompleteMatchRequest): Promise<boolean> {
    return this.post(`/games/${this.gameId}/matches/${matchId}/statuses/completed`, result, 200);
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.polling;
    await this.pool.close();
  }

  private async poll(pollMs: number): Promise<void> {
    while (!this.stopped) {
      const started = performance.now();
      const answer = await this.request(`/games/${this.gameId}/matches`, {}, 200);
      if (answer !== undefined) {
        for (const match of JSON.parse(answer) as DeliveredMatch[]) this.events.match(match, this.kind);
      }
      await sleep(pollMs - (performance.now() - started));
    }
  }

  private async post(path: string, body: object, expected: number): Promise<boolean> {
    return (await this.request(path, body, expected)) !== undefined;
  }

  /** The answer's text, or undefined after reporting an error. */
  private async request(path: string, body: object, expected: number): Promise<string | undefined> {
    try {
      const res = await this.pool.request({
        method: "POST",
        path,
        headers: this.headers,
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode === expected) return text;
      this.events.error(
        `REST ${path.replace(/\/(matches|players)\/.*$/, "/$1/…")} ${res.statusCode}: ${text.slice(0, 200)}`,
      );
    } catch (err) {
      this.events.error(`REST ${path}: ${(err as Error).message}`);
    }
    return undefined;
  }
}

interface Pending {
  resolve(ok: boolean): void;
  action: string;
}

/**
 * One WebSocket per server (`GET /ws?authorization=…`), subscribed to the game: suggestions
 * arrive as `matchSuggestion` pushes, every call is an action. At most `maxInFlight` messages
 * wait for their answer at once (the gateway refuses more with 429), the rest queue here.
 */
export class WebSocketTransport implements Transport {
  readonly kind = "websocket";
  private readonly pending = new Map<string, Pending>();
  private readonly waiting: Array<() => void> = [];
  private nextId = 0;
  private closing = false;

  private constructor(
    private readonly socket: WebSocket,
    private readonly gameId: string,
    private readonly events: ServerEvents,
    private readonly maxInFlight: number,
  ) {
    socket.on("message", (data) => this.received(data.toString()));
    socket.on("close", (code, reason) => {
      if (!this.closing) events.error(`WebSocket closed unexpectedly: ${code} ${reason.toString()}`);
      for (const p of this.pending.values()) p.resolve(false);
      this.pending.clear();
    });
    socket.on("error", (err) => events.error(`WebSocket error: ${err.message}`));
  }

  /** Opens the connection and subscribes to the game. */
  static async open(
    gateway: string,
    token: string,
    gameId: string,
    events: ServerEvents,
    maxInFlight: number,
  ): Promise<WebSocketTransport> {
    const url = `${gateway.replace(/^http/, "ws")}/ws?authorization=${encodeURIComponent(token)}`;
    const socket = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const transport = new WebSocketTransport(socket, gameId, events, maxInFlight);
    if (!(await transport.send("subscribe", { gameId })))
      throw new Error("the gateway refused the subscription");
    return transport;
  }

  add(playerIds: readonly string[]): Promise<boolean> {
    return this.send("addPlayer", {
      gameId: this.gameId,
      players: playerIds.map((playerId) => ({ playerId })),
    });
  }

  confirm(matchId: string): Promise<boolean> {
    return this.send("updateMatchConfirmed", { gameId: this.gameId, matchId });
  }

  complete(matchId: string, result: CompleteMatchRequest): Promise<boolean> {
    return this.send("updateMatchCompleted", { gameId: this.gameId, matchId, ...result });
  }

  async close(): Promise<void> {
    this.closing = true;
    const closed = new Promise((resolve) => this.socket.once("close", resolve));
    this.socket.close(1000);
    await closed;
  }

  private async send(action: string, payload: object): Promise<boolean> {
    while (this.pending.size >= this.maxInFlight) await new Promise<void>((r) => this.waiting.push(r));
    if (this.socket.readyState !== WebSocket.OPEN) {
      this.events.error(`WebSocket ${action}: connection not open`);
      return false;
    }
    const messageId = String(++this.nextId);
    const answered = new Promise<boolean>((resolve) => this.pending.set(messageId, { resolve, action }));
    this.socket.send(JSON.stringify({ action, messageId, payload }));
    return answered;
  }

  private received(text: string): void {
    const message = JSON.parse(text) as {
      action: string;
      messageId: string | null;
      payload?: { match?: DeliveredMatch };
      error?: { code: number; message: string };
    };
    if (message.action === "matchSuggestion" && message.payload?.match) {
      this.events.match(message.payload.match, this.kind);
      return;
    }
    if (message.messageId === null) return; // keepAlive and other pushes
    const pending = this.pending.get(message.messageId);
    if (pending === undefined) return;
    this.pending.delete(message.messageId);
    this.waiting.shift()?.();
    if (message.error) {
      this.events.error(
        `WebSocket ${pending.action} ${message.error.code}: ${message.error.message.slice(0, 200)}`,
      );
    }
    pending.resolve(message.error === undefined);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
