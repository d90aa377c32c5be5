import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { KeepAliveMessage } from "@arena/contracts";
import { AppError, type Clock, type Lifecycle, type Logger, toProblem } from "@arena/service-kit";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { Authenticator, Principal } from "../access/authentication.js";
import { CLOSE, type CloseReason, type Connection } from "./connection.js";
import { EjectedUsers } from "./ejected-users.js";
import type { UpgradeRefusal, WebSocketMetrics } from "./websocket-metrics.js";

export interface ConnectionLimits {
  maxLifetimeMs: number;
  maxBufferedBytes: number;
  maxMessageBytes: number;
  maxConnections: number;
  /** Open connections of one user on this replica. */
  maxConnectionsPerUser: number;
  /** How long a user one of whose connections was ejected may not connect to this replica (0: no wait). */
  ejectedCooldownMs: number;
}

/** What the parts above the transport do with a connection's life. */
export interface ConnectionEvents {
  /** Before a connection opens: start what connections need; a rejection refuses the upgrade (503). */
  opening(): Promise<void>;
  message(conn: Connection, data: RawData, isBinary: boolean): void;
  /** After a connection closed and left the registry. */
  closed(conn: Connection): void;
}

export interface ConnectionRegistryDeps {
  /** Prefix of every connection id: this replica's id in the push fan-out. */
  replicaId: string;
  authenticator: Authenticator;
  lifecycle: Lifecycle;
  /** Ends an ejected user's cooldown. */
  clock: Clock;
  logger: Logger;
  metrics: WebSocketMetrics;
  limits: ConnectionLimits;
  /** Open connections the tenant may hold on this replica (its own limit, or the default). */
  tenantConnectionLimit(tenantId: string): Promise<number>;
  events: ConnectionEvents;
}

/** One round's keepAlive: a messageId of its own (every server message carries one), the same to all. */
function keepAliveMessage(): string {
  return JSON.stringify({
    action: "keepAlive",
    messageId: `keepAlive-${randomUUID()}`,
    payload: {},
  } satisfies KeepAliveMessage);
}

/** How long an ejected connection's close frame has to reach its client before the socket is cut. */
const EJECT_GRACE_MS = 1000;

/** An upgrade refused for a rule of this replica: counted in `gateway_ws_upgrades_refused_total`. */
interface Refusal {
  reason: UpgradeRefusal;
  error: AppError;
}

/**
 * A limit of this replica the upgrade would pass. Every such refusal is a 503 with `Retry-After: 1`,
 * the replica's, the tenant's and the user's alike: each is counted per replica, so another replica
 * (which a load balancer may pick on the retry) may well have room.
 */
const full = (reason: UpgradeRefusal, detail: string): Refusal => ({
  reason,
  error: new AppError("SERVICE_UNAVAILABLE", detail, { headers: { "Retry-After": "1" } }),
});

/**
 * The transport: accepts upgrades (path, token, capacity), holds the open connections, sends with a
 * bound on what a slow client may leave unread, ends connections at their lifetime, and drains on
 * shutdown. It knows nothing of what a message means; `events` does.
 *
 * Capacity is counted on this replica: its total, each tenant's and each user's open connections, so
 * one token or one tenant cannot take every connection a replica has and lock the others out.
 */
export class ConnectionRegistry {
  private readonly wss: WebSocketServer;
  private readonly connections = new Map<string, Connection>();
  private readonly perTenant = new Map<string, number>();
  private readonly perUser = new Map<string, number>();
  private readonly ejected: EjectedUsers;
  private counter = 0;
  private draining = false;
  private drained: (() => void) | undefined;

  constructor(private readonly deps: ConnectionRegistryDeps) {
    this.ejected = new EjectedUsers(deps.clock, deps.limits.ejectedCooldownMs);
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: deps.limits.maxMessageBytes,
      perMessageDeflate: false,
      clientTracking: false,
    });
  }

  /** The server's `upgrade` handler: `/ws` with a good token opens a connection, anything else is refused. */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on("error", () => {});
    void this.accept(req, socket, head).catch((err: unknown) => {
      this.deps.logger.error({ err }, "WebSocket upgrade failed");
      refuseUpgrade(socket, new AppError("INTERNAL", "The connection could not be opened"));
    });
  };

  get size(): number {
    return this.connections.size;
  }

  /** True from shutdown on: no new connections, and messages are refused. */
  get isDraining(): boolean {
    return this.draining;
  }

  get(connectionId: string): Connection | undefined {
    return this.connections.get(connectionId);
  }

  values(): IterableIterator<Connection> {
    return this.connections.values();
  }

  /** Sends text, or drops a connection whose unsent data would pass the bound. */
  send(conn: Connection, text: string): boolean {
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

  close(conn: Connection, code: number, reason: string, why: CloseReason): void {
    conn.closeReason ??= why;
    conn.socket.close(code, reason);
  }

  /**
   * Closes a connection that abuses the protocol and stops reading it at once: what its client has
   * already sent (megabytes, in a flood) is never even unmasked. The close frame goes out; the socket
   * is cut `EJECT_GRACE_MS` later, as the client's answer to it is no longer read. Its user may not
   * connect to this replica again for `ejectedCooldownMs`.
   */
  eject(conn: Connection, code: number, reason: string, why: CloseReason): void {
    if (conn.closeReason !== undefined) return;
    this.close(conn, code, reason, why);
    this.ejected.eject(conn.principal.userId);
    conn.socket.pause();
    setTimeout(() => conn.socket.terminate(), EJECT_GRACE_MS).unref();
  }

  /** The keepAlive push, to every connection. */
  keepAlive(): void {
    const message = keepAliveMessage();
    for (const conn of this.connections.values()) {
      if (this.send(conn, message)) this.deps.metrics.pushes.inc({ kind: "keepAlive" });
    }
  }

  /** Called when a connection's messages are all answered: while draining, it may now close. */
  settled(conn: Connection): void {
    if (this.draining && conn.inFlight === 0) {
      this.close(conn, CLOSE.shutdown, "server shutting down", "shutdown");
    }
  }

  /**
   * On SIGTERM: no new connections or messages; each connection is closed (1001) once its
   * in-flight messages are answered; whatever is still open after `timeoutMs` is cut.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.connections.size === 0) return;
    const done = new Promise<void>((resolve) => {
      this.drained = resolve;
    });
    for (const conn of this.connections.values()) this.settled(conn);
    const timer = setTimeout(() => this.terminateAll(), timeoutMs);
    await done;
    clearTimeout(timer);
  }

  /** Cuts every connection at once (after `drain`, none is left). */
  terminateAll(): void {
    this.draining = true;
    for (const conn of this.connections.values()) conn.socket.terminate();
  }

  private async accept(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://gateway");
    // A full replica refuses before the token is checked, which is the costly part.
    const early = this.refusalOf(url.pathname) ?? this.fullness(undefined);
    if (early !== undefined) {
      this.refuse(socket, early);
      return;
    }
    const authorization = url.searchParams.get("authorization") ?? req.headers.authorization;
    let principal: Principal;
    let tenantLimit: number;
    try {
      principal = await this.deps.authenticator.authenticate(authorization);
      tenantLimit = await this.deps.tenantConnectionLimit(principal.tenantId);
      await this.deps.events.opening();
    } catch (err) {
      refuseUpgrade(socket, err instanceof AppError ? err : new AppError("SERVICE_UNAVAILABLE", "Try again"));
      return;
    }
    if (socket.destroyed) return;
    // Checked again after the awaits; from here to open() the upgrade is synchronous, so concurrent
    // upgrades cannot all pass the check and overshoot a limit together.
    const late =
      this.refusalOf(url.pathname) ?? this.cooldown(principal) ?? this.fullness({ principal, tenantLimit });
    if (late !== undefined) {
      this.refuse(socket, late);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, principal));
  }

  private refuse(socket: Duplex, refusal: AppError | Refusal): void {
    if (refusal instanceof AppError) {
      refuseUpgrade(socket, refusal);
      return;
    }
    this.deps.metrics.refused.inc({ reason: refusal.reason });
    refuseUpgrade(socket, refusal.error);
  }

  /** A 429 while the user waits out the cooldown of an ejected connection; undefined when it may connect. */
  private cooldown({ userId }: Principal): Refusal | undefined {
    const waitMs = this.ejected.waitMs(userId);
    if (waitMs === 0) return undefined;
    const retryAfter = Math.ceil(waitMs / 1000);
    const detail = `A connection of this user was closed for malformed messages; connect again in ${retryAfter} s`;
    const headers = { "Retry-After": String(retryAfter) };
    return { reason: "cooldown", error: new AppError("RATE_LIMITED", detail, { headers }) };
  }

  /** Why an upgrade to `path` is refused before its token is read; undefined when it is not. */
  private refusalOf(path: string): AppError | undefined {
    if (path !== "/ws") return new AppError("ROUTE_NOT_FOUND", `No WebSocket endpoint at ${path}; use /ws`);
    if (this.draining || this.deps.lifecycle.shuttingDown) {
      return new AppError("SERVICE_UNAVAILABLE", "Shutting down; connect again");
    }
    return undefined;
  }

  /**
   * Which limit of this replica a new connection would pass: the replica's, then (once the token
   * says who connects) its tenant's and its user's; undefined when it may open.
   */
  private fullness(who: { principal: Principal; tenantLimit: number } | undefined): Refusal | undefined {
    const { maxConnections, maxConnectionsPerUser } = this.deps.limits;
    if (this.connections.size >= maxConnections) {
      return full("replica", "This replica holds its maximum of WebSocket connections");
    }
    if (who === undefined) return undefined;
    const { principal, tenantLimit } = who;
    if ((this.perTenant.get(principal.tenantId) ?? 0) >= tenantLimit) {
      return full(
        "tenant",
        `Tenant ${principal.tenantId} holds its maximum of ${tenantLimit} WebSocket connections on this replica`,
      );
    }
    if ((this.perUser.get(principal.userId) ?? 0) >= maxConnectionsPerUser) {
      return full(
        "user",
        `This user holds its maximum of ${maxConnectionsPerUser} WebSocket connections on this replica`,
      );
    }
    return undefined;
  }

  private open(socket: WebSocket, principal: Principal): void {
    const { limits, logger, events, metrics } = this.deps;
    this.counter += 1;
    const conn: Connection = {
      id: `${this.deps.replicaId}.${this.counter}`,
      socket,
      principal,
      subscription: undefined,
      inFlight: 0,
      malformedInRow: 0,
      closeReason: undefined,
      lifetime: setTimeout(
        () => this.close(conn, CLOSE.lifetime, "connection lifetime reached; reconnect", "lifetime"),
        limits.maxLifetimeMs,
      ),
    };
    conn.lifetime.unref();
    this.connections.set(conn.id, conn);
    count(this.perTenant, principal.tenantId, 1);
    count(this.perUser, principal.userId, 1);
    metrics.open.set(this.connections.size);
    logger.debug({ connectionId: conn.id, tenantId: principal.tenantId }, "WebSocket opened");
    socket.on("message", (data, isBinary) => events.message(conn, data, isBinary));
    socket.on("error", (err: Error & { code?: string }) => {
      conn.closeReason ??= err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH" ? "too_large" : "error";
      logger.debug({ connectionId: conn.id, err: err.message }, "WebSocket error");
    });
    socket.on("close", () => this.closed(conn));
  }

  private closed(conn: Connection): void {
    clearTimeout(conn.lifetime);
    if (this.connections.get(conn.id) !== conn) return;
    this.connections.delete(conn.id);
    count(this.perTenant, conn.principal.tenantId, -1);
    count(this.perUser, conn.principal.userId, -1);
    this.deps.metrics.open.set(this.connections.size);
    this.deps.metrics.closed.inc({ reason: conn.closeReason ?? "client" });
    this.deps.events.closed(conn);
    if (this.draining && this.connections.size === 0) this.drained?.();
  }
}

/** Adds `delta` to a key's count; a count back at zero leaves the map (it holds only open connections). */
function count(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
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
