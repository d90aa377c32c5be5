import { afterAll, describe, expect, it } from "@jest/globals";
import {
  createInlineSpanScanner,
  createWorkerSpanScanner,
  type SpanScanner,
} from "../src/answer/span-scanner.js";
import { scanTicketSpans } from "../src/answer/ticket-spans.js";

// The worker runs compiled JavaScript: the tests build the app first (test/build-for-tests.js).
const compiledWorker = new URL("../dist/answer/span-scanner-worker.js", import.meta.url);

function body(count: number): Buffer {
  const tickets = Array.from({ length: count }, (_, i) => ({
    ticketId: `t${i}`,
    joinTimestamp: 1_700_000_000 + (i % 60),
    rating: i % 3 === 0 ? 1500 : 1500.5 + i,
    servers: ["eu-1", "eu-2"],
    ...(i % 5 === 0 ? { exactEqualityConstraints: i % 10 === 0 ? null : { map: "dust" } } : {}),
  }));
  return Buffer.from(JSON.stringify({ game_mode: { numTeams: 2, numPlayersPerTeam: 2 }, tickets }));
}

const implementations: Array<[string, () => SpanScanner, boolean]> = [
  ["inline", createInlineSpanScanner, false],
  ["worker thread", () => createWorkerSpanScanner(compiledWorker), true],
];

describe.each(implementations)("the %s span scanner", (_name, create, onWorker) => {
  const scanner = create();
  afterAll(() => scanner.close());

  it("finds the same spans as scanning directly, for small and large bodies", async () => {
    for (const count of [3, 2_000]) {
      const raw = body(count);
      const spans = await scanner.scan(raw, count);
      expect(spans).toEqual(scanTicketSpans(raw, count));
      expect(spans?.count).toBe(count);
    }
    // Small bodies are scanned inline; the large one went to the worker, if this is the worker one.
    expect(scanner.workerScans).toBe(onWorker ? 1 : 0);
  });

  it("scans several bodies at once and answers each with its own spans", async () => {
    const bodies = [1_500, 1_700, 1_900].map((count) => [body(count), count] as const);
    const results = await Promise.all(bodies.map(([raw, count]) => scanner.scan(raw, count)));
    expect(results.map((spans) => spans?.count)).toEqual(bodies.map(([, count]) => count));
  });

  it("answers null when the body does not hold the expected tickets", async () => {
    expect(await scanner.scan(body(2_000), 1_999)).toBeNull();
  });
});

describe("the worker span scanner", () => {
  it("falls back to scanning inline when its worker cannot start", async () => {
    const scanner = createWorkerSpanScanner(new URL("./no-such-worker.js", import.meta.url));
    const raw = body(2_000);
    expect((await scanner.scan(raw, 2_000))?.count).toBe(2_000);
    expect(scanner.workerScans).toBe(0);
    await scanner.close();
  });
});

describe("answers through the worker span scanner", () => {
  it("are the same matches as with the inline scanner", async () => {
    const { createApp } = await import("../src/app.js");
    const { createLogger } = await import("@arena/service-kit");
    const { fakeLicense } = await import("./fake-license.js");
    const { default: request } = await import("supertest");
    const logger = createLogger({ name: "span-test", level: "silent" });
    const config = {
      MAX_BODY_BYTES: 1 << 24,
      MAX_TICKETS: 10_000,
      MAX_MATCH_PLAYERS: 1000,
      CLOCK_SKEW_SECONDS: 60,
    };
    const worker = createWorkerSpanScanner(compiledWorker);
    const appWith = (spanScanner?: SpanScanner) =>
      createApp({ config, license: fakeLicense(), logger, ...(spanScanner ? { spanScanner } : {}) }).app;
    const raw = body(2_000);
    const payload = { ...JSON.parse(raw.toString()), now: 1_700_000_100 };
    const withoutIds = (text: string) => text.replace(/"id":"[0-9a-f-]{36}"/g, '"id":""');
    const viaWorker = await request(appWith(worker)).post("/matchmaking/basic").send(payload);
    const inline = await request(appWith()).post("/matchmaking/basic").send(payload);
    expect(viaWorker.status).toBe(200);
    expect(worker.workerScans).toBe(1);
    expect(withoutIds(viaWorker.text)).toBe(withoutIds(inline.text));
    expect(viaWorker.body.matchSuggestions.length).toBeGreaterThan(400);
    await worker.close();
  });
});
