import { randomUUID } from "node:crypto";
import {
  type BackfillingMatchSuggestionMessage,
  fillPath,
  internalOperation,
  type KeepAliveMessage,
  type MatchSuggestionMessage,
  type MessagePayload,
  type MessageResponsePayloads,
  type PlayersRemovedMessage,
} from "@arena/contracts";
import type { FanoutBroadcast, FanoutDelivery, PushFanout, PushSubscription } from "@arena/redis";
import { AppError, type Clock, type Logger } from "@arena/service-kit";
import type { StatsUpstream } from "../routing/stats-proxy.js";
import type { Connection } from "./connection.js";
import type { ConnectionRegistry } from "./connection-registry.js";
import type { WebSocketMetrics } from "./websocket-metrics.js";

/**
 * What a connection is pushed: stats' messages, which reach it through the fan-out as the JSON text
 * stats wrote (sent unchanged, neither parsed nor encoded again here), and the registry's keepAlive.
 */
export type PushMessage =
  | MatchSuggestionMessage
  | BackfillingMatchSuggestionMessage
  | PlayersRemovedMessage
  | KeepAliveMessage;

export interface PushListenerDeps {
  replicaId: string;
  fanout: PushFanout;
  connections: ConnectionRegistry;
  upstream: StatsUpstream;
  clock: Clock;
  logger: Logger;
  metrics: WebSocketMetrics;
  /** A subscription not written again within this long gets no more pushes. */
  registrationTtlMs: number;
}

const connectionClosed = internalOperation("connectionClosed");
/** Deliveries to a connection that closed this recently make stats re-offer them again. */
const RECENTLY_CLOSED_MS = 60_000;
/** Attempts (1 s apart) to tell stats a subscribed connection closed. */
const CLOSED_NOTICE_ATTEMPTS = 3;

/**
 * Pushes: `subscribe` registers a connection in the Redis fan-out, which offers each push to one
 * connection of one replica; this replica sends what it is offered (deliveries) and what goes to
 * every subscriber of a game (broadcasts). A push is acknowledged by the client's own calls to
 * stats; a subscribed connection that closes is reported to stats, which offers again what it
 * never acknowledged.
 */
export class PushListener {
  private readonly recentlyClosed = new Map<string, { tenantId: string; at: number }>();

  constructor(private readonly deps: PushListenerDeps) {}

  /** Starts receiving this replica's deliveries and broadcasts; resolves with the function that stops. */
  listen(): Promise<() => Promise<void>> {
    return this.deps.fanout.listen(this.deps.replicaId, {
      delivery: (d) => this.deliver(d),
      broadcast: (b) => this.broadcast(b),
    });
  }

  /** Stores the connection's subscription (replacing any earlier one) and answers what was stored. */
  async subscribe(
    conn: Connection,
    payload: MessagePayload<"subscribe">,
  ): Promise<MessageResponsePayloads["subscribe"]> {
    const gameIds = [...new Set([...(payload.gameIds ?? []), ...(payload.gameId ? [payload.gameId] : [])])];
    const subscription = { gameIds, priority: payload.priority ?? 0, rateLimit: payload.rateLimit ?? null };
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

  /** A connection left the registry: a subscribed one is unregistered and reported to stats. */
  closed(conn: Connection): void {
    if (conn.subscription === undefined) return;
    const { tenantId } = conn.principal;
    this.recentlyClosed.set(conn.id, { tenantId, at: this.deps.clock.now().getTime() });
    void this.deps.fanout.unregister(tenantId, conn.id).catch(() => {
      // The registration expires by itself within its TTL.
    });
    void this.notifyClosed(tenantId, conn.id);
  }

  /** Writes every subscription again, so a flushed Redis heals and the TTL never runs out. */
  async refresh(): Promise<void> {
    for (const [id, closed] of this.recentlyClosed) {
      if (!this.isRecent(closed)) this.recentlyClosed.delete(id);
    }
    for (const conn of this.deps.connections.values()) {
      if (conn.subscription === undefined) continue;
      await this.register(conn, conn.subscription).catch((err: unknown) => {
        this.deps.logger.warn(
          { err: (err as Error).message, connectionId: conn.id },
          "subscription refresh failed",
        );
      });
    }
  }

  private register(conn: Connection, subscription: PushSubscription): Promise<void> {
    const { fanout, replicaId, registrationTtlMs } = this.deps;
    return fanout.register(conn.principal.tenantId, replicaId, conn.id, subscription, registrationTtlMs);
  }

  private isRecent(closed: { at: number }): boolean {
    return this.deps.clock.now().getTime() - closed.at <= RECENTLY_CLOSED_MS;
  }

  private deliver(delivery: FanoutDelivery): void {
    const conn = this.deps.connections.get(delivery.connectionId);
    if (conn === undefined || conn.principal.tenantId !== delivery.tenantId) {
      // Offered while the connection was closing: stats must offer it to another one.
      const closed = this.recentlyClosed.get(delivery.connectionId);
      if (closed !== undefined && closed.tenantId === delivery.tenantId && this.isRecent(closed)) {
        void this.notifyClosed(closed.tenantId, delivery.connectionId);
      }
      return;
    }
    if (this.deps.connections.send(conn, delivery.message))
      this.deps.metrics.pushes.inc({ kind: "delivery" });
  }

  private broadcast(broadcast: FanoutBroadcast): void {
    for (const conn of this.deps.connections.values()) {
      if (conn.principal.tenantId !== broadcast.tenantId) continue;
      if (!conn.subscription?.gameIds.includes(broadcast.gameId)) continue;
      if (this.deps.connections.send(conn, broadcast.message)) {
        this.deps.metrics.pushes.inc({ kind: "broadcast" });
      }
    }
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
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });
