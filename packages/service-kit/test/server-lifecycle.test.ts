import { describe, expect, it } from "@jest/globals";
import { createLogger, createServiceApp, serve } from "../src/index.js";

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
});
