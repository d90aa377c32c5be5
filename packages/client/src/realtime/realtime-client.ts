import type { AccessTokens } from "../access-tokens.js";
import { type ClientHooks, type ReconnectEvent, safely } from "../hooks.js";
import { realtimeBackoffDelay } from "./backoff.js";
import { type RealtimeCloseWhy, RealtimeConnection } from "./connection.js";
import { RealtimeError } from "./errors.js";
import { RealtimeRecentKeys } from "./recent-keys.js";
import { openRealtimeSocket, RealtimeOpenError } from "./socket.js";
import { RealtimeSuggestionBuffer } from "./suggestion-buffer.js";
import type {
  BackfillingMatchSuggestionPayload,
  MatchSuggestionPayload,
  PlayersRemovedPayload,
  RealtimeEnvelope,
  RealtimeSubscription,
} from "./types.js";

export interface RealtimeClientOptions {
  /** The gateway's WebSocket URL (`wss://arena.example.com/ws`); an `http(s)://` base URL gets `/ws`. */
  url: string;
  /** Asked for a token before every (re)connect; told when the gateway refuses one. */
  tokens: AccessTokens;
  hooks?: ClientHooks;
  /** The gateway's keepAlive interval (`WS_KEEPALIVE_MS`, default 60 000). */
  keepAliveMs?: number;
  /** Silence after which the connection is taken for dead and replaced (default 2 × keepAliveMs + 5 s). */
  keepAliveTimeoutMs?: number;
  /** The gateway's maximum connection lifetime (`WS_MAX_LIFETIME_MS`, default 2 h). */
  maxLifetimeMs?: number;
  /** How long before that lifetime the next connection is opened (default min(60 s, lifetime / 10)). */
  handoverLeadMs?: number;
  /** How long a request waits for its answer (default 10 000). */
  requestTimeoutMs?: number;
  /** How long an upgrade may take (default 10 000). */
  connectTimeoutMs?: number;
  /** Acknowledge each matchSuggestion once the caller has taken it (default true). */
  autoAck?: boolean;
  /** The first reconnect waits up to this long; each further one twice as long (default 500). */
  reconnectBaseMs?: number;
  /** No reconnect waits longer (default 30 000). */
  reconnectMaxMs?: number;
  /** How many recent pushes are remembered to drop a second offer (default 10 000). */
  dedupeWindow?: number;
  /** Suggestions `suggestions()` holds for a slow consumer (default 1 000). */
  maxBufferedSuggestions?: number;
  /** How long a closing connection may wait for its requests in flight (default 2 000). */
  closeGraceMs?: number;
}

export interface RealtimeConnectedEvent {
  /** 1 for the first connection of this client, then 2, 3, ... */
  connection: number;
  /** `"connect"`, `"reconnect"` (after a gap) or `"handover"` (no gap: the previous one still ran). */
  kind: "connect" | "reconnect" | "handover";
}

export interface RealtimeDisconnectedEvent {
  connection: number;
  code: number;
  reason: string;
  /** Whether the client reconnects (false only after `close()`). */
  reconnecting: boolean;
}

export interface RealtimeEvents {
  matchSuggestion: (suggestion: MatchSuggestionPayload) => void;
  backfillingMatchSuggestion: (suggestion: BackfillingMatchSuggestionPayload) => void;
  playersRemoved: (removed: PlayersRemovedPayload) => void;
  connected: (event: RealtimeConnectedEvent) => void;
  disconnected: (event: RealtimeDisconnectedEvent) => void;
}
export type RealtimeEventName = keyof RealtimeEvents;

/** Close code of a connection at the end of its lifetime (the gateway's). */
const LIFETIME_CLOSE = 4000;

type Settings = Required<Omit<RealtimeClientOptions, "url" | "tokens" | "hooks">>;

/**
 * The gateway's WebSocket API for a game server: one live connection at a time, reconnected with
 * backoff and resubscribed, replaced before its lifetime ends without a gap, and every suggestion
 * handed to the caller once (a bounded window of recent identities drops a second offer).
 */
export class RealtimeClient {
  private readonly settings: Settings;
  private readonly url: string;
  private readonly listeners = new Map<RealtimeEventName, Set<(arg: never) => void>>();
  private readonly recent: RealtimeRecentKeys;
  private readonly live = new Set<RealtimeConnection>();
  private current: RealtimeConnection | undefined;
  private connecting: Promise<RealtimeConnection> | undefined;
  private subscription: RealtimeSubscription | undefined;
  private buffer: RealtimeSuggestionBuffer<MatchSuggestionPayload> | undefined;
  private counter = 0;
  private handoverTimer: NodeJS.Timeout | undefined;
  private handingOver = false;
  private overflowed = false;
  private closing = false;
  private everConnected = false;
  private readonly stop = new AbortController();

  constructor(private readonly options: RealtimeClientOptions) {
    const keepAliveMs = options.keepAliveMs ?? 60_000;
    const maxLifetimeMs = options.maxLifetimeMs ?? 7_200_000;
    this.settings = {
      keepAliveMs,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 2 * keepAliveMs + 5_000,
      maxLifetimeMs,
      handoverLeadMs: options.handoverLeadMs ?? Math.min(60_000, Math.floor(maxLifetimeMs / 10)),
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      autoAck: options.autoAck ?? true,
      reconnectBaseMs: options.reconnectBaseMs ?? 500,
      reconnectMaxMs: options.reconnectMaxMs ?? 30_000,
      dedupeWindow: options.dedupeWindow ?? 10_000,
      maxBufferedSuggestions: options.maxBufferedSuggestions ?? 1_000,
      closeGraceMs: options.closeGraceMs ?? 2_000,
    };
    this.url = realtimeUrlOf(options.url);
    this.recent = new RealtimeRecentKeys(this.settings.dedupeWindow);
  }

  /** Subscribes (connecting on first use) and, after every reconnect, subscribes the same again. */
  async subscribe(subscription: RealtimeSubscription): Promise<void> {
    const previous = this.subscription;
    this.subscription = { ...subscription, gameIds: [...subscription.gameIds] };
    try {
      const conn = await this.connection();
      if (conn.subscribed !== this.subscription) await this.subscribeOn(conn);
    } catch (err) {
      if (isRefusal(err)) this.subscription = previous;
      throw err;
    }
  }

  on<E extends RealtimeEventName>(event: E, listener: RealtimeEvents[E]): this {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as (arg: never) => void);
    return this;
  }

  off<E extends RealtimeEventName>(event: E, listener: RealtimeEvents[E]): this {
    this.listeners.get(event)?.delete(listener as (arg: never) => void);
    return this;
  }

  /**
   * Every matchSuggestion from now on, each once (with autoAck, acknowledged as the iterator hands
   * it out). Several iterators share one bounded buffer: each suggestion goes to one of them.
   */
  suggestions(): AsyncIterableIterator<MatchSuggestionPayload> {
    this.buffer ??= new RealtimeSuggestionBuffer(this.settings.maxBufferedSuggestions, (s) => this.taken(s));
    const buffer = this.buffer;
    let done = false;
    const iterator: AsyncIterableIterator<MatchSuggestionPayload> = {
      next: () => (done ? Promise.resolve({ value: undefined, done: true }) : buffer.next()),
      return: () => {
        done = true;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Sends `action` and resolves with its answer's payload; a RealtimeError otherwise. */
  async request(action: string, payload: object): Promise<Record<string, unknown>> {
    const conn = await this.connection();
    return conn.request(action, payload);
  }

  /** Acknowledges a suggestion (`matchSuggestionDelivery`); needed only with `autoAck: false`. */
  async ack(suggestion: MatchSuggestionPayload | { gameId: string; matchId: string }): Promise<void> {
    const gameId = suggestion.gameId;
    const matchId = "match" in suggestion ? suggestion.match.id : suggestion.matchId;
    await this.request("matchSuggestionDelivery", { gameId, matchId });
    this.recent.set(suggestionKey(gameId, matchId), "acknowledged");
  }

  /**
   * Closes every connection cleanly (after its requests in flight) and ends the iterators. What the
   * iterators still buffered is not acknowledged: stats offers it to another subscriber.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.stop.abort();
    clearTimeout(this.handoverTimer);
    this.buffer?.end();
    await this.connecting?.catch(() => {});
    await Promise.all([...this.live].map((conn) => conn.end("closing", this.settings.closeGraceMs)));
  }

  // ---- connections ----

  /** The live connection, or the one being opened. */
  private connection(): Promise<RealtimeConnection> {
    if (this.closing) return Promise.reject(new RealtimeError("connect", "closed", "The client is closed"));
    if (this.current?.isOpen) return Promise.resolve(this.current);
    this.connecting ??= this.connectLoop(undefined);
    return this.connecting;
  }

  /** Opens a connection, retrying with backoff; `after` is why the previous one went (a reconnect). */
  private async connectLoop(
    after: Omit<ReconnectEvent, "attempt" | "delayMs"> | undefined,
  ): Promise<RealtimeConnection> {
    try {
      let attempt = 0;
      let why = after;
      for (;;) {
        if (why !== undefined) {
          attempt += 1;
          const delayMs = realtimeBackoffDelay(attempt, {
            baseMs: this.settings.reconnectBaseMs,
            maxMs: this.settings.reconnectMaxMs,
          });
          safely(this.options.hooks?.metrics?.reconnect, { ...why, attempt, delayMs });
          this.log("info", "reconnecting", { ...why, attempt, delayMs });
          await this.sleep(delayMs);
        }
        if (this.closing) throw new RealtimeError("connect", "closed", "The client is closed");
        try {
          const conn = await this.open();
          this.adopt(conn, this.everConnected ? "reconnect" : "connect");
          return conn;
        } catch (err) {
          if (this.closing) throw new RealtimeError("connect", "closed", "The client is closed");
          // The gateway refused the subscription itself (400, 403): no retry makes it valid.
          if (isRefusal(err)) throw err;
          // Wrong credentials fail the caller's first subscribe or request instead of retrying
          // forever; once connected, the client keeps trying (a disabled user may be enabled again).
          if (isLoginRefusal(err) && !this.everConnected) throw err;
          const token = err instanceof RealtimeOpenError && (err.status === 401 || err.status === 403);
          why = { reason: token ? "token" : "error" };
          this.log("warn", "connection failed", { err: (err as Error).message });
        }
      }
    } finally {
      this.connecting = undefined;
    }
  }

  /** A fresh token, a socket, and the current subscription on it before anyone uses it. */
  private async open(): Promise<RealtimeConnection> {
    const { tokens } = this.options;
    const token = await tokens.current();
    let socket: Awaited<ReturnType<typeof openRealtimeSocket>>;
    try {
      socket = await openRealtimeSocket(this.url, token, this.settings.connectTimeoutMs);
    } catch (err) {
      if (err instanceof RealtimeOpenError && err.status === 401) tokens.rejected(token);
      throw err;
    }
    this.counter += 1;
    const conn = new RealtimeConnection(
      this.counter,
      socket,
      { requestTimeoutMs: this.settings.requestTimeoutMs, silenceMs: this.settings.keepAliveTimeoutMs },
      {
        push: (message) => this.receive(message),
        closed: (from, code, reason, why) => this.closed(from, code, reason, why),
      },
    );
    this.live.add(conn);
    if (this.subscription !== undefined) {
      try {
        await this.subscribeOn(conn);
      } catch (err) {
        conn.terminate("closing");
        throw err;
      }
    }
    if (this.closing) {
      conn.terminate("closing");
      throw new RealtimeError("connect", "closed", "The client is closed");
    }
    return conn;
  }

  private async subscribeOn(conn: RealtimeConnection): Promise<void> {
    const subscription = this.subscription as RealtimeSubscription;
    await conn.request("subscribe", subscription);
    conn.subscribed = subscription;
  }

  /** Makes `conn` the live connection; one it replaces is closed once its requests are answered. */
  private adopt(conn: RealtimeConnection, kind: RealtimeConnectedEvent["kind"]): void {
    const previous = this.current;
    this.current = conn;
    this.everConnected = true;
    clearTimeout(this.handoverTimer);
    const { maxLifetimeMs, handoverLeadMs } = this.settings;
    this.handoverTimer = setTimeout(() => void this.handover(), Math.max(0, maxLifetimeMs - handoverLeadMs));
    this.handoverTimer.unref();
    this.emit("connected", { connection: conn.id, kind });
    this.log("info", "connected", { connection: conn.id, kind });
    if (previous !== undefined && previous !== conn)
      void previous.end("handover", this.settings.closeGraceMs);
  }

  private closed(
    conn: RealtimeConnection,
    code: number,
    reason: string,
    why: RealtimeCloseWhy | undefined,
  ): void {
    this.live.delete(conn);
    if (conn !== this.current) return;
    this.current = undefined;
    clearTimeout(this.handoverTimer);
    const reconnecting = !this.closing;
    this.emit("disconnected", { connection: conn.id, code, reason, reconnecting });
    this.log("info", "disconnected", { connection: conn.id, code, reason });
    if (!reconnecting || this.connecting) return;
    const event: Omit<ReconnectEvent, "attempt" | "delayMs"> =
      why === "keepAliveMissed"
        ? { reason: "keepAliveMissed", closeCode: code }
        : { reason: code === LIFETIME_CLOSE ? "lifetime" : "closed", closeCode: code };
    this.connecting = this.connectLoop(event);
    this.connecting.catch(() => {});
  }

  /**
   * Before the gateway's lifetime ends (or to have stats offer again what overflowed): opens the
   * next connection and subscribes it while the old one still receives, then closes the old one.
   * Whatever both deliver meanwhile is de-duplicated; what the old one had not acknowledged stats
   * offers to the new one.
   */
  private async handover(why: "lifetime" | "overflow" = "lifetime"): Promise<void> {
    const old = this.current;
    if (this.closing || this.handingOver || old === undefined) return;
    this.handingOver = true;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const fresh = await this.open();
          if (this.current !== old) {
            // The old one died meanwhile and a reconnect took over: this one is not needed.
            void fresh.end("handover", this.settings.closeGraceMs);
            return;
          }
          if (why === "lifetime")
            safely(this.options.hooks?.metrics?.reconnect, { reason: "lifetime", attempt, delayMs: 0 });
          this.adopt(fresh, "handover");
          return;
        } catch (err) {
          if (this.closing || this.current !== old) return;
          const delayMs = realtimeBackoffDelay(attempt, {
            baseMs: this.settings.reconnectBaseMs,
            maxMs: this.settings.reconnectMaxMs,
          });
          this.log("warn", "handover connection failed", { err: (err as Error).message, attempt, delayMs });
          await this.sleep(delayMs);
        }
      }
    } finally {
      this.handingOver = false;
    }
  }

  // ---- pushes ----

  private receive(message: RealtimeEnvelope): void {
    const payload = message.payload as Record<string, unknown> | undefined;
    if (payload === undefined) return;
    switch (message.action) {
      case "matchSuggestion":
        this.suggestion(payload as unknown as MatchSuggestionPayload);
        return;
      case "backfillingMatchSuggestion": {
        const s = payload as unknown as BackfillingMatchSuggestionPayload;
        const key = `b:${s.gameId}:${s.backfillingRequestId}:${s.replacement?.playerId}`;
        this.broadcastOnce("backfillingMatchSuggestion", s.gameId, key, s);
        return;
      }
      case "playersRemoved": {
        const r = payload as unknown as PlayersRemovedPayload;
        const players = (r.players ?? []).map((p) => `${p.playerId}/${p.reference}`).sort();
        this.broadcastOnce("playersRemoved", r.gameId, `r:${r.gameId}:${players.join(",")}`, r);
        return;
      }
      default:
      // keepAlive (it fed the watchdog already) and actions of a later gateway: nothing to do.
    }
  }

  private suggestion(s: MatchSuggestionPayload): void {
    const key = suggestionKey(s.gameId, s.match?.id);
    const seen = this.recent.get(key);
    if (seen !== undefined) {
      safely(this.options.hooks?.metrics?.push, {
        action: "matchSuggestion",
        gameId: s.gameId,
        duplicate: true,
      });
      this.log("debug", "duplicate suggestion dropped", { gameId: s.gameId, matchId: s.match.id });
      // Offered again: stats did not see the acknowledgement (it was in flight on a closing connection).
      if (this.settings.autoAck && seen !== "buffered") this.autoAck(s);
      return;
    }
    const listeners = this.listeners.get("matchSuggestion")?.size ?? 0;
    if (this.buffer !== undefined) {
      this.recent.set(key, "buffered");
      if (!this.buffer.offer(s)) {
        this.recent.delete(key);
        this.overflow(s);
        return;
      }
      this.counted(s);
      this.emit("matchSuggestion", s);
      return;
    }
    if (listeners === 0) {
      this.log("warn", "suggestion with no listener and no iterator left unacknowledged", {
        gameId: s.gameId,
        matchId: s.match.id,
      });
      return;
    }
    this.recent.set(key, "taken");
    this.counted(s);
    this.emit("matchSuggestion", s);
    if (this.settings.autoAck) this.autoAck(s);
  }

  /** An iterator took a buffered suggestion: acknowledge it, and recover from an overflow once drained. */
  private taken(s: MatchSuggestionPayload): void {
    const key = suggestionKey(s.gameId, s.match.id);
    if (this.recent.get(key) === "buffered") this.recent.set(key, "taken");
    if (this.settings.autoAck) this.autoAck(s);
    const buffer = this.buffer as RealtimeSuggestionBuffer<MatchSuggestionPayload>;
    if (this.overflowed && buffer.length <= Math.floor(this.settings.maxBufferedSuggestions / 2)) {
      this.overflowed = false;
      this.log(
        "info",
        "suggestion buffer drained after an overflow; reconnecting so stats offers the rest again",
      );
      void this.handover("overflow");
    }
  }

  /**
   * The buffer is full: the suggestion is neither handed over, remembered nor acknowledged. Stats
   * offers what a connection never acknowledged again when it closes, so once the consumer has
   * caught up the client hands over to a new connection and gets them again.
   */
  private overflow(s: MatchSuggestionPayload): void {
    this.overflowed = true;
    this.log("warn", "suggestion buffer full; suggestion left unacknowledged for stats to offer again", {
      gameId: s.gameId,
      matchId: s.match.id,
      buffered: this.settings.maxBufferedSuggestions,
    });
  }

  private broadcastOnce<E extends "backfillingMatchSuggestion" | "playersRemoved">(
    action: E,
    gameId: string,
    key: string,
    payload: Parameters<RealtimeEvents[E]>[0],
  ): void {
    const duplicate = this.recent.get(key) !== undefined;
    safely(this.options.hooks?.metrics?.push, { action, gameId, duplicate });
    if (duplicate) return;
    this.recent.set(key, "taken");
    this.emit(action, payload);
  }

  private counted(s: MatchSuggestionPayload): void {
    safely(this.options.hooks?.metrics?.push, {
      action: "matchSuggestion",
      gameId: s.gameId,
      duplicate: false,
    });
  }

  private autoAck(s: MatchSuggestionPayload): void {
    this.ack(s).catch((err: unknown) => {
      // Unacknowledged, stats offers it again when this connection closes; the dedupe drops it then.
      if (!this.closing)
        this.log("warn", "acknowledgement failed", { matchId: s.match.id, err: (err as Error).message });
    });
  }

  // ---- plumbing ----

  private emit<E extends RealtimeEventName>(event: E, arg: Parameters<RealtimeEvents[E]>[0]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as (a: typeof arg) => void)(arg);
      } catch (err) {
        // A listener's bug is the caller's; the other listeners and the connection carry on.
        this.log("error", `${event} listener threw`, { err: (err as Error).message });
      }
    }
  }

  private log(
    level: "debug" | "info" | "warn" | "error",
    message: string,
    fields?: Record<string, unknown>,
  ): void {
    const logger = this.options.hooks?.logger;
    safely(logger?.[level]?.bind(logger), `arena realtime: ${message}`, fields);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stop.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      const signal = this.stop.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done);
    });
  }
}

/** An error answer that a retry cannot change (4xx other than 408 and 429). */
function isRefusal(err: unknown): boolean {
  return (
    err instanceof RealtimeError &&
    typeof err.code === "number" &&
    err.code >= 400 &&
    err.code < 500 &&
    err.code !== 408 &&
    err.code !== 429
  );
}

/** The token source's own permanent refusal (the login module's LoginError with a 4xx but 429). */
function isLoginRefusal(err: unknown): boolean {
  const e = err as { name?: unknown; status?: unknown };
  return (
    e?.name === "LoginError" &&
    typeof e.status === "number" &&
    e.status >= 400 &&
    e.status < 500 &&
    e.status !== 429
  );
}

function suggestionKey(gameId: string, matchId: string): string {
  return `m:${gameId}:${matchId}`;
}

/** `ws(s)://.../ws` as given; an `http(s)://` base becomes `ws(s)://<base>/ws`. */
export function realtimeUrlOf(url: string): string {
  const u = new URL(url);
  if (u.protocol === "http:" || u.protocol === "https:") {
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    if (u.pathname === "/" || u.pathname === "") u.pathname = "/ws";
  }
  return u.toString();
}
