import { collectDefaultMetrics, Histogram, Registry } from "prom-client";

export { Counter, Gauge, Histogram, Registry } from "prom-client";

export interface ServiceMetrics {
  registry: Registry;
  httpDuration: Histogram<"method" | "route" | "status">;
}

/**
 * prom-client's defaults that break Prometheus' naming rules (`promtool check metrics`: a gauge
 * must not end in `_total`). Each only sums a gauge it also exports by `type`
 * (`nodejs_active_handles{type}`, …), so the total stays one `sum without (type) (…)` away.
 */
export const DROPPED_DEFAULT_METRICS = Object.freeze([
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
]);

/** A registry per app (not prom-client's global one) so several apps can live in one test process. */
export function createMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration by method, matched route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return { registry, httpDuration };
}
