import { Agent, get as httpGet } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { type AppProcess, PlatformLaunch } from "../src/platform.js";

/**
 * A rolling restart as a load balancer sees it: it keeps sending for a moment after the pod was
 * told to stop (SIGTERM), on the connections it holds open and on new ones. Stats runs as its
 * built process, alone, with a drain delay; no request sent around the signal may fail.
 */

const DELAY_MS = 3000;
const TIMEOUT_MS = 5000;
const REQUESTS = 200;
/** 200 requests, one every 5 ms: the signal comes 400 ms in, the last request 600 ms after it. */
const SPACING_MS = 5;
const SIGNAL_AT_MS = 400;
const GAME = "/games/drain";

interface Outcome {
  path: string;
  connection: "kept-alive" | "new";
  sentAt: number;
  answeredAt: number;
  /** The answer's status, or the error of a request that got none (ECONNRESET, ECONNREFUSED). */
  result: number | string;
}

let launch: PlatformLaunch;
let stats: AppProcess;
let headers: Record<string, string>;

beforeAll(async () => {
  launch = new PlatformLaunch({});
  await launch.database("stats");
  stats = await launch.start("stats", {
    SHUTDOWN_DELAY_MS: String(DELAY_MS),
    SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  headers = {
    authorization: `Bearer ${stats.env.SERVICE_TOKEN}`,
    "x-arena-tenant": "drain",
    "x-arena-role": "admin",
  };
  const game = { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"], confirmationTimeout: 600 };
  const put = await fetch(`${stats.url}${GAME}`, {
    method: "PUT",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(game),
  });
  expect(put.status).toBe(200);
});

afterAll(async () => {
  await launch?.close();
});

/** One GET; `agent` undefined opens a connection of its own. */
function send(path: string, agent: Agent | undefined): Promise<Outcome> {
  const sentAt = performance.now();
  const connection = agent ? "kept-alive" : "new";
  return new Promise<number | string>((resolve) => {
    const req = httpGet(`${stats.url}${path}`, { agent: agent ?? false, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
  }).then((result) => ({ path, connection, sentAt, answeredAt: performance.now(), result }));
}

describe("SIGTERM during a rolling restart", () => {
  it("answers every request sent around it, new connections too, says not ready at once, and exits 0", async () => {
    const keptAlive = new Agent({ keepAlive: true, maxSockets: 10 });
    // Ten connections open and used before the window: a load balancer's upstream pool.
    await Promise.all(Array.from({ length: 10 }, () => send(GAME, keptAlive)));
    const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
      stats.child.once("exit", (code) => resolve({ code, at: performance.now() })),
    );
    let signalledAt = 0;
    const signalled = new Promise<void>((resolve) =>
      setTimeout(() => {
        signalledAt = performance.now();
        stats.child.kill("SIGTERM");
        resolve();
      }, SIGNAL_AT_MS),
    );
    // Each kind in turn: the game (PostgreSQL) and /readyz, on kept-alive and on new connections.
    const kinds: Array<[string, Agent | undefined]> = [
      [GAME, keptAlive],
      [GAME, undefined],
      ["/readyz", keptAlive],
      ["/readyz", undefined],
    ];
    const outcomes = await Promise.all(
      Array.from(
        { length: REQUESTS },
        (_, i) =>
          new Promise<Outcome>((resolve) =>
            setTimeout(() => {
              const [path, agent] = kinds[i % kinds.length]!;
              resolve(send(path, agent));
            }, i * SPACING_MS),
          ),
      ),
    );
    await signalled;
    const exited = await exit;
    keptAlive.destroy();

    const shown = (o: Outcome) =>
      `${o.path} on a ${o.connection} connection sent ${Math.round(o.sentAt - signalledAt)} ms after the signal: ${o.result}`;
    // Every request answered: 200, or 503 from /readyz once the signal came.
    const failed = outcomes.filter((o) => o.result !== 200 && !(o.path === "/readyz" && o.result === 503));
    expect(failed.map(shown)).toEqual([]);
    expect(outcomes.filter((o) => o.sentAt > signalledAt).length).toBeGreaterThan(100);

    // /readyz says not ready from the signal on, while the game is still served on new connections.
    const readyz = outcomes.filter((o) => o.path === "/readyz");
    const notReady = readyz.filter((o) => o.result === 503);
    expect(notReady.length).toBeGreaterThan(10);
    expect(notReady.filter((o) => o.answeredAt < signalledAt).map(shown)).toEqual([]);
    const firstNotReady = Math.min(...notReady.map((o) => o.answeredAt));
    expect(readyz.filter((o) => o.sentAt > firstNotReady && o.result !== 503).map(shown)).toEqual([]);
    const servedSince = outcomes.filter(
      (o) => o.path === GAME && o.connection === "new" && o.sentAt > firstNotReady && o.result === 200,
    );
    expect(servedSince.length).toBeGreaterThan(10);

    // It served through the whole delay, then stopped in time and cleanly.
    expect(exited.code).toBe(0);
    expect(exited.at - signalledAt).toBeGreaterThanOrEqual(DELAY_MS);
    expect(exited.at - signalledAt).toBeLessThan(DELAY_MS + TIMEOUT_MS);
  });
});
