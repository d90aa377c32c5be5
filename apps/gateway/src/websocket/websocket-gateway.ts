import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  fillPath,
  internalOperation,
  MESSAGE_ACTIONS,
  type MessageAction,
  messagePayloadValidators,
  responseAction,
  toFieldErrors,
  UNREADABLE_ACTION_RESPONSE,
  validateClientMessage,
} from "@arena/contracts";
import type {
  FanoutBroadcast,
  FanoutDelivery,
  PushFanout,
  PushSubscription,
  Redis,
  RedisKeys,
} from "@arena/redis";
import {
  AppError,
  Counter,
  Gauge,
  type Lifecycle,
  type Logger,
  type Registry,
  toProblem,
} from "@arena/service-kit";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { type Authenticator, assertRole, type Principal } from "../access/authentication.js";
import type { StatsUpstream } from "../routing/stats-proxy.js";
import {
  actionRequestOf,
  errorOfAnswer,
  errorOfThrown,
  type MessageError,
  operationFor,
  responsePayloadOf,
} from "./action-mapping.js";

const connectionClosed = internalOperation("connectionClosed");

export interface WebSocketLimits {
  keepAliveMs: number;
  maxLifetimeMs: number;
  maxBufferedBytes: number;
  maxMessageBytes: number;
  maxInFlight: number;
  maxConnections: number;
  registrationRefreshMs: number;
  registrationTtlMs: number;
}

export interface WebSocketGatewayDeps {
  authenticator: Authenticator;
  upstream: StatsUpstream;
  /** The tenant's request budget, shared with REST: one message counts as one request. */
  rateLimit: { admit(tenantId: string): Promise<unknown> };
  fanout: PushFanout;
  /** Subscribes (on a duplicate) to the users' status notices. */
  redis: Redis;
  keys: RedisKeys;
  lifecycle: Lifecycle;
  logger: Logger;
  registry: Registry;
  limits: WebSocketLimits;
}

/** Close codes (RFC 6455 and ours, 4000-4999). */
export const CLOSE = {
  shutdown: 1001,
  lifetime: 4000,
  userDisabled: 4001,
} as const;

/** The channel on which a replica that disables a user tells every replica. */
export function userStatusChannel(keys: RedisKeys): string {
  return keys.global("users", "status-changed");
}

const KEEP_ALIVE = JSON.stringify({ action: "keepAlive", messageId: null, payload: {} });
/** Deliveries to a connection that closed this recently make stats re-offer them again. */
const RECENTLY_CLOSED_MS = 60_000;
/** Attempts (1 s apart) to tell stats a subscribed connection closed. */
const CLOSED_NOTICE_ATTEMPTS = 3;
const KNOWN_ACTIONS: ReadonlySet<string> = new Set(MESSAGE_ACTIONS);

type CloseReason =
  | "client"
  | "lifetime"
  | "user_disabled"
  | "backpressure"
  | "too_large"
  | "shutdown"
  | "error";

interface Connection {
  id: string;
  socket: WebSocket;
  principal: Principal;
  subscription: PushSubscription | undefined;
  inFlight: number;
  closeReason: CloseReason | undefined;
  lifetime: NodeJS.Timeout;
}

/**
 * The WebSocket API (`GET /ws`, SPEC §6): the token is checked at the upgrade; each message is
 * validated against the contracts and dispatched through the same stats upstream, role checks and
 * tenant rate limit as REST; pushes arrive through the Redis fan-out.
 *
 * Bounds: incoming messages up to `maxMessageBytes` (1009 past it), `maxInFlight` unanswered
 * messages per connection (more are refused with 429), `maxBufferedBytes` unsent per connection (a
 * client that reads slower is dropped), `maxLifetimeMs` per connection, `maxConnections` per replica.
 */
export class WebSocketGateway {
  readonly replicaId = randomBytes(6).toString("hex");
  private readonly wss: WebSocketServer;
  private readonly connections = new Map<string, Connection>();
  private readonly recentlyClosed = new Map<string, { tenantId: string; at: number }>();
  private counter = 0;
  private started: Promise<void> | undefined;
  private stopListening: Array<() => Promise<void>> = [];
  private timers: NodeJS.Timeout[] = [];
  private draining = false;
  private drained: (() => void) | undefined;
  private readonly metrics;

  constructor(private readonly deps: WebSocketGatewayDeps) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: deps.limits.maxMessageBytes,
      perMessageDeflate: false,
      clientTracking: false,
    });
    this.metrics = {
      open: new Gauge({ name: "gateway_ws_connections", help: "Open WebSocket connections", registers: [] }),
      messages: new Counter({
        name: "gateway_ws_messages_total",
        help: "WebSocket messages answered, by action and outcome (ok, client_error, server_error)",
        labelNames: ["action", "outcome"] as const,
        registers: [],
      }),
      pushes: new Counter({
        name: "gateway_ws_pushes_total",
        help: "Pushes sent to WebSocket connections, by kind (delivery, broadcast, keepAlive)",
        labelNames: ["kind"] as const,
        registers: [],
      }),
      closed: new Counter({
        name: "gateway_ws_closed_total",
        help: "WebSocket connections closed, by reason (backpressure: dropped for not reading)",
        labelNames: ["reason"] as const,
        registers: [],
      }),
    };
    const { open, messages, pushes, closed } = this.metrics;
    for (const metric of [open, messages, pushes, closed]) deps.registry.registerMetric(metric as Gauge);
  }

  /** The server's `upgrade` handler: `/ws` with a good token opens a connection, anything else is refused. */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => {});
    void this.upgrade(req, socket, head).catch((err: unknown) => {
      this.deps.logger.error({ err }, "WebSocket upgrade failed");
      refuseUpgrade(socket, new AppError("INTERNAL", "The connection could not be opened"));
    });
  };

  /** Open connections on this replica (for tests and the gauge). */
  get size(): number {
    return this.connections.size;
  }

  /**
   * On SIGTERM: no new connections or messages; each connection is closed (1001) once its
   * in-flight messages are answered; whatever is still open after `timeoutMs` is cut.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.connections.size > 0) {
      const done = new Promise<void>((resolve) => {
        this.drained = resolve;
      });
      for (const conn of this.connections.values()) {
        if (conn.inFlight === 0)
          this.closeConnection(conn, CLOSE.shutdown, "server shutting down", "shutdown");
      }
      const timer = setTimeout(() => {
        for (const conn of this.connections.values()) conn.socket.terminate();
      }, timeoutMs);
      await done;
      clearTimeout(timer);
    }
  }

  /** Stops timers and listeners and cuts what is still open (after `drain`, nothing is). */
  async close(): Promise<void> {
    this.draining = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (const conn of this.connections.values()) conn.socket.terminate();
    await this.started?.catch(() => {});
    for (const stop of this.stopListening.splice(0)) await stop().catch(() => {});
  }

  // ---- connections ----

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://gateway");
    if (url.pathname !== "/ws") {
      refuseUpgrade(
        socket,
        new AppError("ROUTE_NOT_FOUND", `No WebSocket endpoint at ${url.pathname}; use /ws`),
      );
      return;
    }
    if (this.draining || this.deps.lifecycle.shuttingDown) {
      refuseUpgrade(socket, new AppError("SERVICE_UNAVAILABLE", "Shutting down; connect again"));
      return;
    }
    if (this.connections.size >= this.deps.limits.maxConnections) {
      refuseUpgrade(
        socket,
        new AppError("SERVICE_UNAVAILABLE", "This replica holds its maximum of WebSocket connections", {
          headers: { "Retry-After": "1" },
        }),
      );
      return;
    }
    const authorization = url.searchParams.get("authorization") ?? req.headers.authorization;
    let principal: Principal;
    try {
      principal = await this.deps.authenticator.authenticate(authorization);
      await this.ensureStarted();
    } catch (err) {
      refuseUpgrade(socket, err instanceof AppError ? err : new AppError("SERVICE_UNAVAILABLE", "Try again"));
      return;
    }
    if (socket.destroyed) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, principal));
  }

  private open(socket: WebSocket, principal: Principal): void {
    const { limits, logger } = this.deps;
    this.counter += 1;
    const conn: Connection = {
      id: `${this.replicaId}.${this.counter}`,
      socket,
      principal,
      subscription: undefined,
      inFlight: 0,
      closeReason: undefined,
      lifetime: setTimeout(
        () =>
          this.closeConnection(conn, CLOSE.lifetime, "connection lifetime reached; reconnect", "lifetime"),
        limits.maxLifetimeMs,
      ),
    };
    conn.lifetime.unref();
    this.connections.set(conn.id, conn);
    this.metrics.open.set(this.connections.size);
    logger.debug({ connectionId: conn.id, tenantId: principal.tenantId }, "WebSocket opened");
    socket.on("message", (data, isBinary) => void this.receive(conn, data, isBinary));
    socket.on("error", (err: Error & { code?: string }) => {
      conn.closeReason ??= err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" ? "too_large" : "error";
      logger.debug({ connectionId: conn.id, err: err.message }, "WebSocket error");
    });
    socket.on("close", () => this.closed(conn));
  }

  private closeConnection(conn: Connection, code: number, reason: string, why: CloseReason): void {
    conn.closeReason ??= why;
    conn.socket.close(code, reason);
  }

  private closed(conn: Connection): void {
    clearTimeout(conn.lifetime);
    if (this.connections.get(conn.id) !== conn) return;
    this.connections.delete(conn.id);
    this.metrics.open.set(this.connections.size);
    this.metrics.closed.inc({ reason: conn.closeReason ?? "client" });
    if (conn.subscription !== undefined) {
      const { tenantId } = conn.principal;
      this.recentlyClosed.set(conn.id, { tenantId, at: Date.now() });
      void this.deps.fanout.unregister(tenantId, conn.id).catch(() => {
        // The registration expires by itself within its TTL.
      });
      void this.notifyClosed(tenantId, conn.id);
    }
    if (this.draining && this.connections.size === 0) this.drained?.();
  }

  /** Tells stats to re-offer what this connection never acknowledged. */
  private async notifyClosed(tenantId: string, connectionId: string): Promise<void> {
    for (let attempt = 1; attempt <= CLOSED_NOTICE_ATTEMPTS; attempt++) {
      try {
        const answer = await this.deps.upstream.callAndRead({
          method: connectionClosed.method,
          path: fillPath(connectionClosed.path, { connectionId }),
          tenantId,
          // Stats admits only calls that name a role; the notice acts for the connection's server.
          role: "server",
          requestId: randomUUID(),
        });
        if (answer.status < 500) return;
      } catch {
        // Retried below.
      }
      if (attempt < CLOSED_NOTICE_ATTEMPTS) await sleep(1000);
    }
    this.deps.logger.warn(
      { connectionId, tenantId },
      "stats was not told that a subscribed connection closed",
    );
  }

  /** Sends text, or drops a connection whose unsent data would pass the bound. */
  private send(conn: Connection, text: string): boolean {
    const { socket } = conn;
    if (socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount + Buffer.byteLength(text) > this.deps.limits.maxBufferedBytes) {
      conn.closeReason ??= "backpressure";
      this.deps.logger.warn(
        { connectionId: conn.id, bufferedAmount: socket.bufferedAmount },
        "WebSocket client is not reading; dropped",
      );
      socket.terminate();
      return false;
    }
    socket.send(text);
    return true;
  }

  // ---- messages ----

  private async receive(conn: Connection, data: RawData, isBinary: boolean): Promise<void> {
    if (conn.closeReason !== undefined) return;
    if (isBinary) {
      this.answerError(conn, UNREADABLE_ACTION_RESPONSE, null, undefined, {
        code: 400,
        message: "Binary frames are not accepted: send each message as JSON text",
      });
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(rawText(data));
    } catch (err) {
      this.answerError(conn, UNREADABLE_ACTION_RESPONSE, null, undefined, {
        code: 400,
        message: `The message is not valid JSON: ${(err as Error).message}`,
        errors: [{ pointer: "", detail: "is not valid JSON" }],
      });
      return;
    }
    const { action, answerAction, messageId } = readEnvelope(message);
    if (this.draining) {
      this.answerError(conn, answerAction, messageId, action, {
        code: 503,
        message: "Shutting down; reconnect",
      });
      return;
    }
    if (conn.inFlight >= this.deps.limits.maxInFlight) {
      this.answerError(conn, answerAction, messageId, action, {
        code: 429,
        message: `At most ${this.deps.limits.maxInFlight} messages may await an answer on one connection`,
      });
      return;
    }
    conn.inFlight += 1;
    try {
      const payload = await this.handle(conn, message);
      this.metrics.messages.inc({ action: action ?? "unknown", outcome: "ok" });
      this.send(conn, JSON.stringify({ action: answerAction, messageId, payload }));
    } catch (err) {
      const error = err instanceof MessageFailed ? err.error : errorOfThrown(err);
      if (error.code >= 500 && !(err instanceof MessageFailed) && !(err instanceof AppError)) {
        this.deps.logger.error({ err, connectionId: conn.id, action }, "WebSocket message failed");
      }
      this.answerError(conn, answerAction, messageId, action, error);
    } finally {
      conn.inFlight -= 1;
      if (this.draining && conn.inFlight === 0) {
        this.closeConnection(conn, CLOSE.shutdown, "server shutting down", "shutdown");
      }
    }
  }

  private answerError(
    conn: Connection,
    answerAction: string,
    messageId: string | null,
    action: string | undefined,
    error: MessageError,
  ): void {
    this.metrics.messages.inc({
      action: action ?? "unknown",
      outcome: error.code >= 500 ? "server_error" : "client_error",
    });
    this.send(conn, JSON.stringify({ action: answerAction, messageId, error }));
  }

  /** Validates and runs one message; answers the response payload or throws. */
  private async handle(conn: Connection, message: unknown): Promise<unknown> {
    if (!validateClientMessage(message))
      throw AppError.validation(toFieldErrors(validateClientMessage.errors));
    const action = message.action as MessageAction;
    const payload = (message.payload ?? {}) as Record<string, unknown>;
    const validate = messagePayloadValidators[action];
    if (!validate(payload)) throw AppError.validation(toFieldErrors(validate.errors, "/payload"));
    const { principal } = conn;
    const op = operationFor(action);
    if (op !== undefined) assertRole(op.roles, principal.role);
    await this.deps.rateLimit.admit(principal.tenantId);
    if (action === "subscribe") return this.subscribe(conn, payload);
    const request = actionRequestOf(action, payload);
    const answer = await this.deps.upstream.callAndRead({
      ...request,
      tenantId: principal.tenantId,
      role: principal.role,
      requestId: randomUUID(),
    });
    const error = errorOfAnswer(answer);
    if (error !== undefined) throw new MessageFailed(error);
    return responsePayloadOf(action, payload, answer.body);
  }

  // ---- pushes ----

  private async subscribe(conn: Connection, payload: Record<string, unknown>) {
    const gameIds = [
      ...new Set([
        ...((payload.gameIds as string[] | undefined) ?? []),
        ...(typeof payload.gameId === "string" ? [payload.gameId] : []),
      ]),
    ];
    const subscription: PushSubscription = {
      gameIds,
      priority: (payload.priority as number | undefined) ?? 0,
      rateLimit: (payload.rateLimit as number | null | undefined) ?? null,
    };
    try {
      await this.register(conn, subscription);
    } catch (err) {
      throw new AppError("SERVICE_UNAVAILABLE", "The subscription could not be stored; try again", {
        cause: err,
      });
    }
    conn.subscription = subscription;
    return subscription;
  }

  private register(conn: Connection, subscription: PushSubscription): Promise<void> {
    return this.deps.fanout.register(
      conn.principal.tenantId,
      this.replicaId,
      conn.id,
      subscription,
      this.deps.limits.registrationTtlMs,
    );
  }

  private deliver(delivery: FanoutDelivery): void {
    const conn = this.connections.get(delivery.connectionId);
    if (conn === undefined || conn.principal.tenantId !== delivery.tenantId) {
      // Offered while the connection was closing: stats must offer it to another one.
      const closed = this.recentlyClosed.get(delivery.connectionId);
      if (closed !== undefined && closed.tenantId === delivery.tenantId) {
        void this.notifyClosed(closed.tenantId, delivery.connectionId);
      }
      return;
    }
    if (this.send(conn, delivery.message)) this.metrics.pushes.inc({ kind: "delivery" });
  }

  private broadcast(broadcast: FanoutBroadcast): void {
    for (const conn of this.connections.values()) {
      if (conn.principal.tenantId !== broadcast.tenantId) continue;
      if (!conn.subscription?.gameIds.includes(broadcast.gameId)) continue;
      if (this.send(conn, broadcast.message)) this.metrics.pushes.inc({ kind: "broadcast" });
    }
  }

  // ---- background work ----

  /** Starts listening for pushes and user notices, and the timers, at the first connection. */
  private ensureStarted(): Promise<void> {
    this.started ??= this.start().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async start(): Promise<void> {
    const { deps } = this;
    this.stopListening.push(
      await deps.fanout.listen(this.replicaId, {
        delivery: (d) => this.deliver(d),
        broadcast: (b) => this.broadcast(b),
      }),
    );
    const notices = deps.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    notices.on("error", () => {});
    notices.on("message", (_channel: string, userId: string) => void this.userChanged(userId));
    await notices.subscribe(userStatusChannel(deps.keys));
    this.stopListening.push(async () => {
      await notices.quit().catch(() => notices.disconnect());
    });
    const every = (ms: number, task: () => unknown) => {
      const timer = setInterval(task, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(deps.limits.keepAliveMs, () => this.keepAlive());
    every(deps.limits.registrationRefreshMs, () => void this.refresh());
  }

  private keepAlive(): void {
    for (const conn of this.connections.values()) {
      if (this.send(conn, KEEP_ALIVE)) this.metrics.pushes.inc({ kind: "keepAlive" });
    }
  }

  /** Writes every subscription again (a flushed Redis heals) and closes the connections of disabled users. */
  private async refresh(): Promise<void> {
    const now = Date.now();
    for (const [id, closed] of this.recentlyClosed) {
      if (now - closed.at > RECENTLY_CLOSED_MS) this.recentlyClosed.delete(id);
    }
    const users = new Map<string, Principal>();
    for (const conn of this.connections.values()) {
      users.set(conn.principal.userId, conn.principal);
      if (conn.subscription === undefined) continue;
      await this.register(conn, conn.subscription).catch((err: unknown) => {
        this.deps.logger.warn(
          { err: (err as Error).message, connectionId: conn.id },
          "subscription refresh failed",
        );
      });
    }
    for (const principal of users.values()) await this.checkUser(principal);
  }

  /** A notice from the replica that changed a user: forget what was cached, and check its connections. */
  private async userChanged(userId: string): Promise<void> {
    this.deps.authenticator.forgetUser(userId);
    const conn = [...this.connections.values()].find((c) => c.principal.userId === userId);
    if (conn !== undefined) await this.checkUser(conn.principal);
  }

  private async checkUser(principal: Principal): Promise<void> {
    let active: boolean;
    try {
      active = await this.deps.authenticator.isActive(principal);
    } catch {
      return; // The database is unreachable: checked again at the next refresh.
    }
    if (active) return;
    for (const conn of this.connections.values()) {
      if (conn.principal.userId === principal.userId) {
        this.closeConnection(conn, CLOSE.userDisabled, "user disabled", "user_disabled");
      }
    }
  }
}

/** A message error that stats answered (a problem), as opposed to one the gateway raised. */
class MessageFailed extends Error {
  constructor(readonly error: MessageError) {
    super(error.message);
  }
}

/** The action, answer action and messageId of a parsed message, read as far as they can be. */
function readEnvelope(message: unknown): {
  action: MessageAction | undefined;
  answerAction: string;
  messageId: string | null;
} {
  const m = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
  const action =
    typeof m.action === "string" && KNOWN_ACTIONS.has(m.action) ? (m.action as MessageAction) : undefined;
  const messageId = typeof m.messageId === "string" && m.messageId.length <= 256 ? m.messageId : null;
  return { action, answerAction: action ? responseAction(action) : UNREADABLE_ACTION_RESPONSE, messageId };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}

/** Answers a refused upgrade as a problem+json HTTP response and closes the socket. */
function refuseUpgrade(socket: Duplex, err: AppError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(toProblem(err, randomUUID(), "/ws"));
  const headers = {
    "Content-Type": "application/problem+json",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    ...err.headers,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n");
  socket.end(`HTTP/1.1 ${err.status} ${statusText(err)}\r\n${head}\r\n\r\n${body}`);
}

function statusText(err: AppError): string {
  return toProblem(err, "").title.replace(/[^\x20-\x7e]/g, "");
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });
