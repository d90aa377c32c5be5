import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { PushFanout, Redis, RedisKeys } from "@arena/redis";
import type { Clock, Lifecycle, Logger } from "@arena/service-kit";
import type { Authenticator } from "../access/authentication.js";
import type { StatsUpstream } from "../routing/stats-proxy.js";
import { type ConnectionLimits, ConnectionRegistry } from "./connection-registry.js";
import { MessageDispatcher } from "./message-dispatcher.js";
import { PushListener } from "./push-listener.js";
import { UserStatusNotices } from "./user-status-notices.js";
import type { WebSocketMetrics } from "./websocket-metrics.js";

export interface WebSocketLimits extends ConnectionLimits {
  keepAliveMs: number;
  maxInFlight: number;
  maxMalformedInRow: number;
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
  clock: Clock;
  logger: Logger;
  metrics: WebSocketMetrics;
  limits: WebSocketLimits;
  /** Open connections the tenant may hold on one replica (its own limit, or the default). */
  tenantConnectionLimit(tenantId: string): Promise<number>;
}

/**
 * The WebSocket API (`GET /ws`), composed of its four parts: the connection registry (the
 * transport: upgrade, limits, keepAlive, lifetime, back-pressure, drain), the message dispatcher
 * (what a message means), the push listener (the Redis fan-out's pushes) and the user-status
 * notices (a disabled user's connections close). The pushes' and notices' Redis listeners and the
 * timers start with the first connection.
 */
export class WebSocketGateway {
  readonly replicaId = randomBytes(6).toString("hex");
  /** The server's `upgrade` handler: `/ws` with a good token opens a connection, anything else is refused. */
  readonly handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  private readonly connections: ConnectionRegistry;
  private readonly pushes: PushListener;
  private readonly notices: UserStatusNotices;
  private started: Promise<void> | undefined;
  private stopListening: Array<() => Promise<void>> = [];
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly deps: WebSocketGatewayDeps) {
    const { replicaId } = this;
    const { authenticator, upstream, clock, logger, metrics, limits } = deps;
    const connections = new ConnectionRegistry({
      replicaId,
      authenticator,
      lifecycle: deps.lifecycle,
      clock,
      logger,
      metrics,
      limits,
      tenantConnectionLimit: deps.tenantConnectionLimit,
      events: {
        opening: () => this.ensureStarted(),
        message: (conn, data, isBinary) => void dispatcher.receive(conn, data, isBinary),
        closed: (conn) => pushes.closed(conn),
      },
    });
    const pushes = new PushListener({
      replicaId,
      fanout: deps.fanout,
      connections,
      upstream,
      clock,
      logger,
      metrics,
      registrationTtlMs: limits.registrationTtlMs,
    });
    const dispatcher = new MessageDispatcher({
      connections,
      upstream,
      rateLimit: deps.rateLimit,
      subscribe: (conn, payload) => pushes.subscribe(conn, payload),
      logger,
      metrics,
      maxInFlight: limits.maxInFlight,
      maxMalformedInRow: limits.maxMalformedInRow,
    });
    this.notices = new UserStatusNotices({ redis: deps.redis, keys: deps.keys, authenticator, connections });
    this.connections = connections;
    this.pushes = pushes;
    this.handleUpgrade = connections.handleUpgrade;
  }

  /** Open connections on this replica. */
  get size(): number {
    return this.connections.size;
  }

  /**
   * On SIGTERM: no new connections or messages; each connection is closed (1001) once its
   * in-flight messages are answered; whatever is still open after `timeoutMs` is cut.
   */
  drain(timeoutMs: number): Promise<void> {
    return this.connections.drain(timeoutMs);
  }

  /** Stops timers and listeners and cuts what is still open (after `drain`, nothing is). */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.connections.terminateAll();
    await this.started?.catch(() => {});
    for (const stop of this.stopListening.splice(0)) await stop().catch(() => {});
  }

  /** Starts listening for pushes and user notices, and the timers, at the first connection. */
  private ensureStarted(): Promise<void> {
    this.started ??= this.start().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async start(): Promise<void> {
    this.stopListening.push(await this.pushes.listen());
    this.stopListening.push(await this.notices.listen());
    const every = (ms: number, task: () => unknown) => {
      const timer = setInterval(task, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.deps.limits.keepAliveMs, () => this.connections.keepAlive());
    every(this.deps.limits.registrationRefreshMs, () => void this.refresh());
  }

  /** Subscriptions written again (a flushed Redis heals), then the users re-checked. */
  private async refresh(): Promise<void> {
    await this.pushes.refresh();
    await this.notices.checkConnectedUsers();
  }
}
