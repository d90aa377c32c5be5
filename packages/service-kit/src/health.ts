import type { Express } from "express";
import { AppError } from "./app-error.js";
import type { ServiceMetrics } from "./metrics.js";

/** A dependency the service needs to do its work; `check` rejects (or throws) when it is unusable. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<void> | void;
}

export interface Lifecycle {
  /** True once shutdown has begun: /readyz answers 503 so load balancers drain this instance. */
  readonly shuttingDown: boolean;
  beginShutdown(): void;
}

export function createLifecycle(): Lifecycle {
  let shuttingDown = false;
  return {
    get shuttingDown() {
      return shuttingDown;
    },
    beginShutdown() {
      shuttingDown = true;
    },
  };
}

const CHECK_TIMEOUT_MS = 2_000;

async function runCheck(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(check.check),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return "ok";
  } catch (err) {
    return `failing: ${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthRouteOptions {
  /** Serve /metrics (default true). */
  metrics?: boolean;
  /** Name each check and its failure in /readyz (default true); false answers only ready or not. */
  detailedReadiness?: boolean;
}

export function mountHealthRoutes(
  app: Express,
  checks: readonly ReadinessCheck[],
  lifecycle: Lifecycle,
  metrics: ServiceMetrics,
  options: HealthRouteOptions = {},
): void {
  const detailed = options.detailedReadiness ?? true;
  app.get("/livez", (_req, res) => {
    res.json({ status: "ok" });
  });

  app.get("/readyz", async (_req, res) => {
    if (lifecycle.shuttingDown) {
      throw new AppError("SERVICE_UNAVAILABLE", "Shutting down", { extensions: { checks: {} } });
    }
    const results = await Promise.all(checks.map(async (c) => [c.name, await runCheck(c)] as const));
    const report = Object.fromEntries(results);
    const failing = results.filter(([, r]) => r !== "ok");
    if (failing.length > 0) {
      if (!detailed) throw new AppError("SERVICE_UNAVAILABLE", "Not ready");
      const detail = failing.map(([name, r]) => `${name} ${r}`).join("; ");
      throw new AppError("SERVICE_UNAVAILABLE", `Not ready: ${detail}`, { extensions: { checks: report } });
    }
    res.json(detailed ? { status: "ready", checks: report } : { status: "ready" });
  });

  if (options.metrics ?? true) {
    app.get("/metrics", async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
}
