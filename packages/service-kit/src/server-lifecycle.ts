import type { Server } from "node:http";
import type { Express } from "express";
import type { Lifecycle } from "./health.js";
import type { Logger } from "./logger.js";

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, waits for in-flight requests (up to the timeout), then runs `onClose` hooks. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  app: Express;
  port: number;
  host: string;
  logger: Logger;
  lifecycle: Lifecycle;
  /** Closes what the app holds (PostgreSQL, Redis, timers), in order, after the last request. */
  onClose?: Array<() => Promise<void> | void>;
  shutdownTimeoutMs?: number;
}

export async function serve(options: ServeOptions): Promise<RunningServer> {
  const { app, logger, lifecycle } = options;
  const server = app.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  logger.info({ port, host: options.host }, "listening");

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.beginShutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timeout = options.shutdownTimeoutMs ?? 10_000;
      const timer = setTimeout(() => {
        logger.warn({ timeoutMs: timeout }, "in-flight requests did not finish in time; closing connections");
        server.closeAllConnections();
      }, timeout);
      timer.unref();
      await closed;
      clearTimeout(timer);
      for (const hook of options.onClose ?? []) await hook();
      logger.info("stopped");
    })();
    return stopping;
  };
  return { server, port, stop };
}

/** Wires SIGTERM/SIGINT to a graceful stop and exit 0 (1 if stopping itself failed). */
export function stopOnSignals(running: RunningServer, logger: Logger): void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, "shutting down");
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
}
