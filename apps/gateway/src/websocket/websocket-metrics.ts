import { Counter, Gauge, type Registry } from "@arena/service-kit";

/** The kinds of push counted by `gateway_ws_pushes_total`. */
export type PushKind = "delivery" | "broadcast" | "keepAlive";

/**
 * Which rule of this replica refused an upgrade, the `reason` label of
 * `gateway_ws_upgrades_refused_total`: a connection limit (replica, tenant, user; 503) or the
 * cooldown of a user whose connection was ejected (429).
 */
export type UpgradeRefusal = "replica" | "tenant" | "user" | "cooldown";

export interface WebSocketMetrics {
  open: Gauge;
  messages: Counter<"action" | "outcome">;
  pushes: Counter<"kind">;
  closed: Counter<"reason">;
  refused: Counter<"reason">;
}

/** The WebSocket API's metrics, registered with the app's registry. */
export function websocketMetrics(registry: Registry): WebSocketMetrics {
  return {
    open: new Gauge({
      name: "gateway_ws_connections",
      help: "Open WebSocket connections",
      registers: [registry],
    }),
    messages: new Counter({
      name: "gateway_ws_messages_total",
      help: "WebSocket messages answered, by action and outcome (ok, client_error, server_error)",
      labelNames: ["action", "outcome"] as const,
      registers: [registry],
    }),
    pushes: new Counter({
      name: "gateway_ws_pushes_total",
      help: "Pushes sent to WebSocket connections, by kind (delivery, broadcast, keepAlive)",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    closed: new Counter({
      name: "gateway_ws_closed_total",
      help: "WebSocket connections closed, by reason (backpressure: dropped for not reading)",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    refused: new Counter({
      name: "gateway_ws_upgrades_refused_total",
      help: "WebSocket upgrades refused by a rule of this replica, by reason (replica, tenant, user: 503; cooldown: 429)",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
  };
}
