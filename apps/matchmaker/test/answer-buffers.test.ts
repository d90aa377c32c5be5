import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { BytePool } from "../src/answer/byte-pool.js";
import { createApp } from "../src/app.js";
import { fakeLicense } from "./fake-license.js";

const NOW = 1_700_000_000;

/** A queue whose tickets name `tag`, so an answer holding another queue's bytes shows it. */
function queue(tag: string, count: number): Buffer {
  const tickets = Array.from({ length: count }, (_, i) => ({
    ticketId: `${tag}-${i}`,
    joinTimestamp: NOW - (i % 50),
    rating: 1200 + ((i * 7919) % 600) + 0.5,
    servers: [`${tag}-eu-1`, `${tag}-eu-2`],
  }));
  return Buffer.from(JSON.stringify({ game_mode: { numTeams: 2, numPlayersPerTeam: 2 }, tickets, now: NOW }));
}

function post(port: number, body: Buffer): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/matchmaking/basic",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": body.length },
      },
      resolve,
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const withoutIds = (text: string) => text.replace(/"id":"[0-9a-f-]{36}"/g, '"id":""');

/**
 * The answers must be larger than what the kernel's socket buffers absorb, so each test sends
 * several 40k-ticket queues: about 10 s alone, and over the 30 s default beside the other suites
 * in CI (it timed out there once).
 */
const LARGE_ANSWER_TIMEOUT_MS = 120_000;

describe("answer buffers reused from one request to the next", () => {
  const { app } = createApp({
    config: {
      MAX_BODY_BYTES: 64 << 20,
      MAX_TICKETS: 100_000,
      MAX_MATCH_PLAYERS: 1000,
      CLOCK_SKEW_SECONDS: 60,
    },
    license: fakeLicense(),
    logger: createLogger({ name: "answer-buffers-test", level: "silent" }),
    clock: { now: () => new Date(NOW * 1000) },
  });
  const server = app.listen(0, "127.0.0.1");
  let port = 0;
  beforeAll(async () => {
    if (!server.listening) await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(
    "never hand a slow reader's answer to the next request before it is sent",
    async () => {
      const slowBody = queue("slow", 40_000);
      const fastBody = queue("fast", 40_000);
      const expected = withoutIds(await readAll(await post(port, slowBody)));
      // Both answers are several MiB: a reader that does not read keeps most of its answer in the
      // server's socket, and the next request's answer needs a buffer of the same size.
      const slow = await post(port, slowBody);
      slow.pause();
      for (let i = 0; i < 3; i++) {
        const fast = await readAll(await post(port, fastBody));
        expect(fast).not.toContain('"slow-');
      }
      const answer = await readAll(slow);
      expect(answer).not.toContain('"fast-');
      expect(withoutIds(answer)).toBe(expected);
      expect(JSON.parse(answer).matchSuggestions.length).toBeGreaterThan(9_000);
    },
    LARGE_ANSWER_TIMEOUT_MS,
  );

  it(
    "answer a client that leaves mid-answer and then the next one in full",
    async () => {
      const body = queue("gone", 40_000);
      const expected = withoutIds(await readAll(await post(port, body)));
      const left = await post(port, body);
      left.destroy();
      const next = await readAll(await post(port, body));
      expect(withoutIds(next)).toBe(expected);
    },
    LARGE_ANSWER_TIMEOUT_MS,
  );
});

describe("BytePool", () => {
  it("hands a given-back buffer to the next take that fits, and allocates otherwise", () => {
    const allocated: number[] = [];
    const pool = new BytePool((size) => {
      allocated.push(size);
      return Buffer.alloc(size);
    });
    const first = pool.take(100);
    pool.give(first);
    expect(pool.take(80)).toBe(first);
    pool.give(first);
    const bigger = pool.take(200);
    expect(bigger).not.toBe(first);
    expect(allocated).toEqual([100, 200]);
    // Buffers too small for a request are not kept to be passed over again.
    expect(pool.idleCount).toBe(0);
  });

  it("keeps at most `keep` idle buffers, and none after the idle time", async () => {
    const pool = new BytePool(undefined, 2, 20);
    for (const size of [10, 20, 30]) pool.give(Buffer.alloc(size));
    expect(pool.idleCount).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(pool.idleCount).toBe(0);
  });
});
