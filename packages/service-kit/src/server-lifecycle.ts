import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";
import type { Duplex } from "node:stream";
import type { Express } from "express";
import { createAppServer } from "./app-server.js";
import { answerClientError } from "./client-error.js";
import type { Lifecycle } from "./health.js";
import type { Logger } from "./logger.js";

export interface RunningServer {
  server: Server;
  port: number;
  /**
   * Answers /readyz with 503 and keeps serving for the delay, then stops accepting, waits for
   * in-flight requests (up to the timeout) and runs the `onClose` hooks.
   */
  stop(): Promise<void>;
}

export interface ServeOptions {
  app: Express;
  port: number;
  host: string;
  logger: Logger;
  lifecycle: Lifecycle;
  /** Handles HTTP upgrade requests (WebSockets), attached before the server listens. */
  onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * Run as shutdown begins, while in-flight requests finish: close long-lived connections
   * (upgraded sockets are no requests, and the server waits for them to end before `onClose`).
   */
  onShutdown?: Array<() => Promise<void> | void>;
  /** Closes what the app holds (PostgreSQL, Redis, timers), in order, after the last request. */
  onClose?: Array<() => Promise<void> | void>;
  /** How long in-flight requests may take once the listener has closed (default 10 s). */
  shutdownTimeoutMs?: number;
  /**
   * How long `stop` keeps accepting and answering after /readyz turned 503, before the listener
   * closes (default 0): the time a load balancer takes to stop sending here. Closing at once
   * refuses the connections it still opens and resets those already waiting to be accepted.
   */
  shutdownDelayMs?: number;
}

/**
 * How long a kept-alive connection left idle may stay open once shutdown begins. A busy client
 * gets `Connection: close` on its next answer well within it; closing sooner resets clients that
 * were about to send (a loaded machine delays them by hundreds of milliseconds: CI saw one at 500).
 */
const IDLE_GRACE_MS = 2000;

export async function serve(options: ServeOptions): Promise<RunningServer> {
  const { app, logger, lifecycle } = options;
  const server = createAppServer(app).listen(options.port, options.host);
  if (options.onUpgrade) server.on("upgrade", options.onUpgrade);
  server.on("clientError", answerClientError);
  // Answers not sent yet: once shutdown begins each closes its connection (`Connection: close`).
  const pending = new Set<ServerResponse>();
  server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
    if (lifecycle.shuttingDown) {
      res.setHeader("Connection", "close");
      return;
    }
    pending.add(res);
    res.once("close", () => pending.delete(res));
  });
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
      // From here /readyz answers 503 and every answer closes its connection: a client that comes
      // back through the load balancer gets a new connection, to a replica that is not stopping.
      lifecycle.beginShutdown();
      for (const res of pending) if (!res.headersSent) res.setHeader("Connection", "close");
      const delay = options.shutdownDelayMs ?? 0;
      if (delay > 0) {
        logger.info({ delayMs: delay }, "not ready; serving until the delay is over");
        // A timer may fire up to a millisecond early by the monotonic clock (libuv's loop time is
        // whole milliseconds), so it is set again for what is left until the delay has passed.
        const until = performance.now() + delay;
        while (performance.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, Math.ceil(until - performance.now())));
        }
      }
      // Stop listening, but do not drop the idle kept-alive connections at once as http's close()
      // does: a client may be writing its next request on one right now and would see a reset.
      // Every answer from here on closes its connection; those still idle after a moment are
      // closed then (a client silent that long is not sending).
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      const timeout = options.shutdownTimeoutMs ?? 10_000;
      const idle = setTimeout(() => server.closeIdleConnections(), Math.min(IDLE_GRACE_MS, timeout));
      idle.unref();
      const timer = setTimeout(() => {
        logger.warn({ timeoutMs: timeout }, "in-flight requests did not finish in time; closing connections");
        server.closeAllConnections();
      }, timeout);
      timer.unref();
      await Promise.all(
        (options.onShutdown ?? []).map(async (hook) => {
          try {
            await hook();
          } catch (err) {
            logger.error({ err }, "shutdown hook failed");
          }
        }),
      );
      await closed;
      clearTimeout(timer);
      clearTimeout(idle);
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
