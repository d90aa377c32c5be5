import { Agent, get as httpGet } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import type { Express } from "express";
import { createLogger, createServiceApp, type ServeOptions, serve } from "../src/index.js";
import { keptAliveClients } from "../src/testing.js";

const logger = createLogger({ name: "test", level: "silent" });

/** A service app with `routes`, served on a free port of 127.0.0.1 with `options` on top. */
async function serveApp(
  routes: (app: Express) => void,
  options: Partial<Omit<ServeOptions, "app" | "lifecycle">> = {},
) {
  const { app, lifecycle } = createServiceApp({ name: "test", logger, routes });
  const running = await serve({ app, port: 0, host: "127.0.0.1", logger, lifecycle, ...options });
  return { running, lifecycle, base: `http://127.0.0.1:${running.port}` };
}

describe("serve", () => {
  it("finishes in-flight requests, refuses new ones, then runs the close hooks", async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const closed: string[] = [];
    const { running, lifecycle, base } = await serveApp(
      (a) => {
        a.get("/slow", async (_req, res) => {
          await slow;
          res.json({ done: true });
        });
      },
      { onClose: [() => void closed.push("db"), () => void closed.push("redis")] },
    );
    const inFlight = fetch(`${base}/slow`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    const stopping = running.stop();
    expect(lifecycle.shuttingDown).toBe(true);
    await expect(fetch(`${base}/livez`)).rejects.toThrow();
    expect(closed).toEqual([]);
    release();
    await expect(inFlight).resolves.toEqual({ done: true });
    await stopping;
    expect(closed).toEqual(["db", "redis"]);
  });

  it("hands upgrades to onUpgrade and runs onShutdown hooks before waiting for upgraded sockets", async () => {
    const upgraded: Duplex[] = [];
    const order: string[] = [];
    const { running } = await serveApp(() => {}, {
      onUpgrade: (_req, socket) => {
        socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n");
        upgraded.push(socket);
      },
      onShutdown: [
        () => {
          order.push("shutdown hook");
          for (const socket of upgraded) socket.end();
        },
      ],
      onClose: [() => void order.push("close hook")],
    });
    const client: Socket = connect(running.port, "127.0.0.1");
    const switched = new Promise<string>((resolve) => client.once("data", (d) => resolve(d.toString())));
    client.write("GET /x HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n");
    expect(await switched).toMatch(/^HTTP\/1.1 101/);
    const ended = new Promise<void>((resolve) => client.once("end", resolve));
    client.on("end", () => client.end());
    await running.stop();
    await ended;
    expect(order).toEqual(["shutdown hook", "close hook"]);
  });
});

describe("serve with a shutdown delay", () => {
  it("answers /readyz 503 at once, serves new connections until the delay is over, then stops", async () => {
    const hooks: string[] = [];
    const delayMs = 500;
    const { running, base } = await serveApp(
      (a) => {
        a.get("/work", (_req, res) => {
          res.json({ done: true });
        });
      },
      {
        shutdownDelayMs: delayMs,
        onShutdown: [() => void hooks.push("shutdown")],
        onClose: [() => void hooks.push("close")],
      },
    );
    expect(await answerOf(`${base}/readyz`)).toEqual({ status: 200, connection: "keep-alive" });
    const stoppedAt = performance.now();
    const stopping = running.stop();
    // Not ready, yet answering, each answer on a connection of its own that it then closes; the
    // shutdown hooks (the gateway's WebSocket drain) wait for the delay too.
    expect(await answerOf(`${base}/readyz`)).toEqual({ status: 503, connection: "close" });
    expect(await answerOf(`${base}/work`)).toEqual({ status: 200, connection: "close" });
    expect(hooks).toEqual([]);
    await stopping;
    expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(delayMs);
    await expect(fetch(`${base}/work`)).rejects.toThrow();
    expect(hooks).toEqual(["shutdown", "close"]);
  });
});

/** One GET on a new connection it asks to keep alive: its status and what the answer says of that. */
async function answerOf(url: string): Promise<{ status: number; connection: string | undefined }> {
  const agent = new Agent({ keepAlive: true });
  try {
    return await new Promise((resolve, reject) => {
      httpGet(url, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      }).on("error", reject);
    });
  } finally {
    agent.destroy();
  }
}

describe("serve under load", () => {
  it("answers every request on its kept-alive connections while stopping, and resets none", async () => {
    let received = 0;
    const { running, base } = await serveApp((a) => {
      a.get("/work", async (_req, res) => {
        received++;
        await new Promise((r) => setTimeout(r, 2));
        res.json({ done: true });
      });
    });
    const url = `${base}/work`;
    // Stop once every client holds an accepted connection, and some time after: a loaded machine
    // may leave a connection in the listen backlog for hundreds of milliseconds.
    const { outcomes, connected, done } = keptAliveClients(
      20,
      () => url,
      (answer) => `${answer.status} ${answer.body}`,
    );
    await connected;
    await new Promise((r) => setTimeout(r, 300));
    await running.stop();
    await done;
    expect([...outcomes.keys()]).toEqual(['200 {"done":true}']);
    // Every request the server read was answered in full.
    expect(outcomes.get('200 {"done":true}')).toBe(received);
    expect(received).toBeGreaterThan(100);
  });
});
