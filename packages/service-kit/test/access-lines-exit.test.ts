import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { eventually } from "../src/testing.js";

/**
 * Access lines wait for the end of their turn of the event loop (`AccessLines`); a process that
 * exits before that turn ends must still write them. A real process, logging to its stdout as
 * services do: a request's own `close` listener throws right after the kit recorded the request, so
 * the process dies of an uncaught error in the same turn, and its access line must be in its output.
 */
const KIT = pathToFileURL(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/index.js"),
).href;

const SERVICE = `
import { createLogger, createServiceApp } from ${JSON.stringify(KIT)};
const logger = createLogger({ name: "exit-test", level: "info" });
const { app } = createServiceApp({
  name: "exit-test",
  logger,
  routes(express) {
    express.get("/last", (_req, res) => {
      res.on("close", () => {
        throw new Error("dies in the turn that finished the request");
      });
      res.json({ last: true });
    });
  },
});
const server = app.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
`;

describe("access lines when the process exits", () => {
  it("writes the lines still waiting for their turn's end before the process dies", async () => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", SERVICE], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const port = await eventually(
      () => {
        const printed = /PORT (\d+)/.exec(stdout)?.[1];
        if (printed === undefined && child.exitCode !== null) throw new Error(`no port: ${stdout}`);
        return printed;
      },
      { timeoutMs: 10_000, everyMs: 20, what: () => `a port: ${stdout}` },
    );
    await fetch(`http://127.0.0.1:${port}/last`, { headers: { "x-request-id": "the-last-one" } }).catch(
      () => undefined,
    );
    expect(await exited).not.toBe(0);
    const line = stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === "the-last-one");
    expect(line).toMatchObject({ msg: "request completed", path: "/last", status: 200 });
  });
});
