import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import { createLogger, createServiceApp, serve } from "../src/index.js";
import { keptAliveClients } from "../src/testing.js";

describe("serve", () => {
  it("finishes in-flight requests, refuses new ones, then runs the close hooks", async () => {
    const logger = createLogger({ name: "test", level: "silent" });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { app, lifecycle } = createServiceApp({
      name: "test",
      logger,
      routes(a) {
        a.get("/slow", async (_req, res) => {
          await slow;
          res.json({ done: true });
        });
      },
    });
    const closed: string[] = [];
    const running = await serve({
      app,
      port: 0,
      host: "127.0.0.1",
      logger,
      lifecycle,
      onClose: [() => void closed.push("db"), () => void closed.push("redis")],
    });
    const base = `http://127.0.0.1:${running.port}`;
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
    const logger = createLogger({ name: "test", level: "silent" });
    const { app, lifecycle } = createServiceApp({ name: "test", logger, routes: () => {} });
    const upgraded: Duplex[] = [];
    const order: string[] = [];
    const running = await serve({
      app,
      port: 0,
      host: "127.0.0.1",
      logger,
      lifecycle,
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

describe("serve under load", () => {
  it("answers every request on its kept-alive connections while stopping, and resets none", async () => {
    const logger = createLogger({ name: "test", level: "silent" });
    let received = 0;
    const { app, lifecycle } = createServiceApp({
      name: "test",
      logger,
      routes(a) {
        a.get("/work", async (_req, res) => {
          received++;
          await new Promise((r) => setTimeout(r, 2));
          res.json({ done: true });
        });
      },
    });
    const running = await serve({ app, port: 0, host: "127.0.0.1", logger, lifecycle });
    const url = `http://127.0.0.1:${running.port}/work`;
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
