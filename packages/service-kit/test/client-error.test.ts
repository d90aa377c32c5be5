import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createLogger, createServiceApp, type RunningServer, serve } from "../src/index.js";

const logger = createLogger({ name: "test", level: "silent" });
let running: RunningServer;
let base: string;

beforeAll(async () => {
  const { app, lifecycle } = createServiceApp({
    name: "test",
    logger,
    routes: (a) => a.get("/ok", (_req, res) => void res.json({ ok: true })),
  });
  running = await serve({ app, port: 0, host: "127.0.0.1", logger, lifecycle });
  base = `http://127.0.0.1:${running.port}`;
});
afterAll(async () => {
  await running.stop();
});

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(running.port, "127.0.0.1", () => socket.end(bytes));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("requests the HTTP parser refuses", () => {
  it("answers a 100 KB path with a 431 problem, and the service answers on as before", async () => {
    const res = await fetch(`${base}/ok?q=${"x".repeat(100_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 431, code: "HEADERS_TOO_LARGE" });
    expect(await (await fetch(`${base}/ok`)).json()).toEqual({ ok: true });
  });

  it("answers bytes that are not HTTP with a 400 problem", async () => {
    const answer = await raw("NOT HTTP AT ALL\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain("application/problem+json");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
      code: "MALFORMED_REQUEST",
    });
  });
});
