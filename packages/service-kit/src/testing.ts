/**
 * Helpers for tests that run services as real processes or servers, and the one poller for what
 * they do (`@arena/service-kit/testing`; not part of the kit's main entry, so no app loads them).
 */
import { spawnSync } from "node:child_process";
import { Agent, get as httpGet } from "node:http";
import { createServer } from "node:net";

/**
 * A port for a process to listen on, random within `[from, from + span)` and checked bindable.
 * Keep ranges below Linux's ephemeral range (32768–60999): the suites running meanwhile bind port
 * 0 by the thousand (supertest does for every request), and one of them could take an ephemeral
 * port between this probe and the child's own listen.
 */
export async function freePort(from = 20_000, span = 12_000): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * span);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (bound) {
      await new Promise((r) => server.close(r));
      return port;
    }
  }
  throw new Error(`no free port found between ${from} and ${from + span}`);
}

/** A complete answer, or the error code of a request that got none (ECONNRESET, …). */
export type KeptAliveOutcome = { status: number; body: string } | string;

/**
 * A client on one kept-alive connection: request after request (the i-th to `urlOf(i)`), each
 * outcome reported, until an answer says `Connection: close` (the server drains), a new
 * connection is refused (the listener closed: not reported), or a request fails (reported as its
 * error code, then stops). A reset is thus a request sent on a connection the server had accepted.
 */
export async function keptAliveClient(
  urlOf: (i: number) => string,
  onOutcome: (outcome: KeptAliveOutcome) => void,
  headers: Record<string, string> = {},
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; ; i++) {
      const answer = await new Promise<{ status: number; body: string; close: boolean }>(
        (resolve, reject) => {
          const req = httpGet(urlOf(i), { agent, headers }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => {
              body += chunk;
            });
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, body, close: res.headers.connection === "close" }),
            );
            res.on("error", reject);
          });
          req.on("error", reject);
        },
      ).catch((err: { code?: string }) => err.code ?? String(err));
      if (answer === "ECONNREFUSED") return;
      if (typeof answer === "string") {
        onOutcome(answer);
        return;
      }
      onOutcome({ status: answer.status, body: answer.body });
      if (answer.close) return;
    }
  } finally {
    agent.destroy();
  }
}

/** Kept-alive clients at work together: what they got, and when they are under way and done. */
export interface KeptAliveLoad {
  /** How many outcomes of each key: an error by its code, an answer by the caller's key for it. */
  outcomes: Map<string, number>;
  /** Resolves once every client has had an answer: each holds a connection the server accepted. */
  connected: Promise<void>;
  /** Resolves once every client has stopped. */
  done: Promise<void>;
}

/**
 * `count` kept-alive clients (`keptAliveClient`), their outcomes tallied by key. Signal a server
 * to stop only after `connected`: a connection still in the listen backlog when the listener
 * closes is reset by the kernel, which no server can prevent (a load balancer drains first).
 */
export function keptAliveClients(
  count: number,
  urlOf: (i: number) => string,
  keyOf: (answer: { status: number; body: string }) => string,
  headers: Record<string, string> = {},
): KeptAliveLoad {
  const outcomes = new Map<string, number>();
  const tally = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const connected: Array<Promise<void>> = [];
  const clients = Array.from({ length: count }, () => {
    let answered!: () => void;
    connected.push(new Promise<void>((resolve) => (answered = resolve)));
    return keptAliveClient(
      urlOf,
      (outcome) => {
        if (typeof outcome === "string") return tally(outcome);
        tally(keyOf(outcome));
        answered();
      },
      headers,
    );
  });
  return {
    outcomes,
    connected: Promise.all(connected).then(() => {}),
    done: Promise.all(clients).then(() => {}),
  };
}

/** How `eventually` polls: for how long, how often, and what the wait is for (its timeout's message). */
export interface EventuallyOptions {
  /** How long to keep asking before giving up; 10 s unless given. */
  timeoutMs?: number;
  /** The pause between two answers; 10 ms unless given. */
  everyMs?: number;
  /**
   * What is waited for, as the timeout's message says it ("the standby to replay up to 0/3000060");
   * a function is read only at the timeout, to say what was seen by then (a child's output).
   */
  what?: string | (() => string);
}

/**
 * Asks `probe` every `everyMs` until it answers something other than undefined or false, and
 * returns that answer (`true` for a boolean predicate). Throws, naming `what` and the time waited,
 * once `timeoutMs` has passed (the probe is asked at least once). An error thrown by the probe
 * ends the wait: catch inside the probe to poll through errors, and throw from it to stop early (a
 * child process that exited).
 */
export async function eventually<T>(
  probe: () => T | undefined | false | PromiseLike<T | undefined | false>,
  options: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 10, what = "the probe to answer" } = options;
  const started = Date.now();
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    const waited = Date.now() - started;
    if (waited >= timeoutMs) {
      throw new Error(
        `timed out after ${waited} ms waiting for ${typeof what === "function" ? what() : what}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Asks `/readyz` (through `get`) until it answers 200, at most `tries` times `pauseMs` apart, and
 * returns the last answer. A fresh instance's first checks open its connections, which on a loaded
 * CI machine can outlast the kit's 2 s check timeout, as a real probe would retry; the caller then
 * asserts on the answer, whose detail says which check failed.
 */
export async function untilReady<T extends { status: number }>(
  get: () => PromiseLike<T>,
  tries = 10,
  pauseMs = 500,
): Promise<T> {
  let answer = await get();
  for (let attempt = 1; answer.status !== 200 && attempt < tries; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    answer = await get();
  }
  return answer;
}

/**
 * Runs a `/metrics` text through Prometheus' own linter (`promtool check metrics`, from the
 * `prometheus` package): its exit code and what it printed (empty when every rule holds).
 */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
  const run = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8", timeout: 30_000 });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}
