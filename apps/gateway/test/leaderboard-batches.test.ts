import { request as httpRequest, type ServerResponse } from "node:http";
import { leaderboardBatchBodies, leaderboardBatchLine, leaderboardBatchText } from "@arena/contracts";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import type supertest from "supertest";
import { createHarness, type Harness, type Instance } from "./harness.js";
import type { ReceivedRequest } from "./stats-stub.js";

/**
 * Leaderboard reads sent to stats together under load (LEADERBOARD_BATCH_READS), against a stats
 * stub that holds the reads sent alone until the test lets them go, so the reads behind them
 * queue. The same against the real stats: e2e/test/leaderboard-cache.test.ts.
 */
let h: Harness;
/** Cache off: every read reaches the stub. */
let gateway: Instance;
let acme: string;
let globex: string;
/** Reads sent alone, not yet answered. */
let held: Array<() => void> = [];
let holding = true;
/** How the stub answers a batch: normally, as an older stats without the operation (404), or by hanging up. */
let batchMode: "answer" | "plain-json" | "unknown" | "hang-up" = "answer";

/** What stats answers one read: a board naming the read, or 404 for player "nobody". */
function answerOf(body: { count?: number; playerId?: string }, tenant: string) {
  if (body.playerId === "nobody") return undefined;
  return {
    leaderboard: [{ playerId: body.playerId ?? tenant, rank: 1, ranking_points: body.count ?? 0 }],
    season: "S1",
  };
}

const NOT_FOUND = JSON.stringify({
  type: "https://arena.dev/problems/not-found",
  title: "Resource not found",
  status: 404,
  code: "NOT_FOUND",
  detail: "Player nobody has no entry",
});

function stub(req: ReceivedRequest, res: ServerResponse): void {
  const tenant = String(req.headers["x-arena-tenant"]);
  const json = { "content-type": "application/json; charset=utf-8", "x-arena-internal-api": "1" };
  if (req.url.endsWith("/leaderboard-reads")) {
    if (batchMode === "hang-up") {
      res.socket?.destroy();
      return;
    }
    if (batchMode === "unknown") {
      res.writeHead(404, { "content-type": "application/problem+json" });
      res.end(NOT_FOUND);
      return;
    }
    const { reads } = JSON.parse(req.body.toString("utf8")) as { reads: Array<{ count?: number }> };
    const answers = reads.map((read) => {
      const body = answerOf(read, tenant);
      return body === undefined ? { status: 404 } : { status: 200, body };
    });
    res.writeHead(200, json);
    // stats' layout (one answer to a line), or the same JSON without it, which the gateway parses.
    res.end(
      batchMode === "plain-json"
        ? JSON.stringify({ answers })
        : leaderboardBatchText(answers.map(leaderboardBatchLine)),
    );
    return;
  }
  const send = () => {
    const body = answerOf(JSON.parse(req.body.toString("utf8")), tenant);
    if (body === undefined) {
      res.writeHead(404, { "content-type": "application/problem+json; charset=utf-8" });
      res.end(NOT_FOUND);
    } else {
      res.writeHead(200, json);
      res.end(JSON.stringify(body));
    }
  };
  if (holding) held.push(send);
  else send();
}

beforeAll(async () => {
  h = await createHarness();
  gateway = await h.startInstance({ LEADERBOARD_CACHE_MS: "0" });
  const acmeClient = await h.createTenant("acme");
  const globexClient = await h.createTenant("globex");
  await h.createUser("acme", "acme-server");
  await h.createUser("globex", "globex-server");
  acme = (await h.login("acme-server", acmeClient)).IdToken;
  globex = (await h.login("globex-server", globexClient)).IdToken;
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.stats.handler = stub;
  held = [];
  holding = true;
  batchMode = "answer";
  h.stats.received.length = 0;
});

const read = (body: object, token = acme, instance = gateway) =>
  instance.http.post("/games/g1/leaderboard").set("Authorization", token).send(body);

/** Starts the requests (supertest sends on `then`) and keeps their answers' promises. */
const started = (tests: supertest.Test[]) => tests.map((t) => t.then((res) => res));

/** A metric's value on `instance`, the series whose labels include `label` (e.g. `sent="alone"`). */
async function metric(name: string, label = "", instance = gateway): Promise<number> {
  const text = (await instance.http.get("/metrics")).text;
  for (const line of text.split("\n")) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match?.[1] === name && match[2]!.includes(label)) return Number(match[3]);
  }
  return 0;
}

/** How long the tests wait for the gateway to reach a state (`eventually`'s options). */
const WITHIN = { timeoutMs: 5000 };

/** A read sent alone and held by the stub: the board's call in flight. */
async function fillTheBoardsCall(token = acme): Promise<Array<Promise<supertest.Response>>> {
  const first = started([read({ count: 1, playerId: "first" }, token)]);
  await eventually(async () => held.length === 1, WITHIN);
  return first;
}

const uploads = () => h.stats.received.map((r) => r.url);

describe("leaderboard reads sent to stats together", () => {
  it.each(["answer", "plain-json"] as const)(
    "sends the reads that came while a call was in flight in one batch, each answered as alone (%s)",
    async (mode) => {
      batchMode = mode;
      const alone0 = await metric("gateway_leaderboard_upstream_reads_total", 'sent="alone"');
      const batched0 = await metric("gateway_leaderboard_upstream_reads_total", 'sent="batched"');
      const again0 = await metric("gateway_leaderboard_upstream_reads_total", 'sent="again"');
      const first = await fillTheBoardsCall();
      const bodies = [
        ...Array.from({ length: 9 }, (_, i) => ({ count: 10 + i, playerId: `p${i}` })),
        { count: 5, playerId: "nobody" },
      ];
      const queued = started(bodies.map((body) => read(body)));
      await eventually(async () => (await metric("gateway_leaderboard_reads_waiting")) === 10, WITHIN);
      holding = false;
      for (const send of held) send();

      const [a] = await Promise.all(first);
      expect(JSON.parse(a!.text)).toEqual(answerOf({ count: 1, playerId: "first" }, "acme"));
      const answers = await Promise.all(queued);
      for (const [i, body] of bodies.entries()) {
        const res = answers[i]!;
        if (body.playerId === "nobody") {
          // Sent again alone: the client gets stats' own problem answer.
          expect(res.status).toBe(404);
          expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
          expect(res.text).toBe(NOT_FOUND);
          continue;
        }
        expect(res.status).toBe(200);
        expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
        expect(res.text).toBe(JSON.stringify(answerOf(body, "acme")));
      }
      // One alone, one batch of the ten that waited, the failed one alone again.
      expect(uploads()).toEqual([
        "/games/g1/leaderboard",
        "/internal/games/g1/leaderboard-reads",
        "/games/g1/leaderboard",
      ]);
      const batch = h.stats.received[1]!;
      expect(batch.headers["x-arena-tenant"]).toBe("acme");
      expect(batch.headers["x-arena-role"]).toBe("server");
      expect(JSON.parse(batch.body.toString("utf8"))).toEqual({ reads: bodies });
      expect(await metric("gateway_leaderboard_upstream_reads_total", 'sent="alone"')).toBe(alone0 + 1);
      expect(await metric("gateway_leaderboard_upstream_reads_total", 'sent="batched"')).toBe(batched0 + 9);
      expect(await metric("gateway_leaderboard_upstream_reads_total", 'sent="again"')).toBe(again0 + 1);
      expect(await metric("gateway_leaderboard_reads_waiting")).toBe(0);
    },
  );

  it("never makes one tenant's read wait for another's board, nor batches them together", async () => {
    const first = await fillTheBoardsCall();
    // globex's board has no call in flight: its read goes at once (and is held too).
    const other = started([read({ count: 3, playerId: "g" }, globex)]);
    await eventually(async () => held.length === 2, WITHIN);
    const waiting = started([read({ count: 4, playerId: "a" })]);
    await eventually(async () => (await metric("gateway_leaderboard_reads_waiting")) === 1, WITHIN);
    holding = false;
    for (const send of held) send();
    const answers = await Promise.all([...first, ...other, ...waiting]);
    expect(JSON.parse(answers[1]!.text)).toEqual(answerOf({ count: 3, playerId: "g" }, "globex"));
    expect(JSON.parse(answers[2]!.text)).toEqual(answerOf({ count: 4, playerId: "a" }, "acme"));
    // A batch of one is sent as an ordinary read.
    expect(uploads().filter((u) => u.endsWith("/leaderboard-reads"))).toEqual([]);
    expect(h.stats.received.map((r) => r.headers["x-arena-tenant"])).toEqual(["acme", "globex", "acme"]);
  });

  it("sends a read that is not plain (Prefer, a query, a large body) alone at once", async () => {
    const first = await fillTheBoardsCall();
    const unusual = started([
      read({ count: 6, playerId: "preferring" }).set("Prefer", "return=minimal"),
      gateway.http
        .post("/games/g1/leaderboard?x=1")
        .set("Authorization", acme)
        .send({ count: 7, playerId: "q" }),
      read({ count: 8, playerId: "padded", pad: "x".repeat(600) }),
    ]);
    await eventually(async () => held.length === 4, WITHIN);
    expect(await metric("gateway_leaderboard_reads_waiting")).toBe(0);
    holding = false;
    for (const send of held) send();
    for (const res of await Promise.all([...first, ...unusual])) expect(res.status).toBe(200);
  });

  it("sends each read alone when stats refuses the batch (a stats without the operation)", async () => {
    batchMode = "unknown";
    const first = await fillTheBoardsCall();
    const bodies = [1, 2, 3].map((i) => ({ count: i, playerId: `old-${i}` }));
    const queued = started(bodies.map((body) => read(body)));
    await eventually(async () => (await metric("gateway_leaderboard_reads_waiting")) === 3, WITHIN);
    holding = false;
    for (const send of held) send();
    const answers = await Promise.all([...first, ...queued]);
    for (const [i, body] of bodies.entries())
      expect(answers[i + 1]!.text).toBe(JSON.stringify(answerOf(body, "acme")));
    expect(uploads().filter((u) => u.endsWith("/leaderboard"))).toHaveLength(4);
  });

  it("fails every read of a batch stats hung up on with the gateway's 502, and keeps answering", async () => {
    batchMode = "hang-up";
    const first = await fillTheBoardsCall();
    const queued = started([1, 2, 3].map((i) => read({ count: i, playerId: `cut-${i}` })));
    await eventually(async () => (await metric("gateway_leaderboard_reads_waiting")) === 3, WITHIN);
    holding = false;
    for (const send of held) send();
    await Promise.all(first);
    for (const res of await Promise.all(queued)) {
      expect(res.status).toBe(502);
      expect(res.body.code).toBe("UPSTREAM_FAILED");
    }
    batchMode = "answer";
    const after = await read({ count: 9, playerId: "after" });
    expect(after.text).toBe(JSON.stringify(answerOf({ count: 9, playerId: "after" }, "acme")));
  });

  it("does not send the waiting reads whose clients left, and answers the rest", async () => {
    const dropped0 = await metric("gateway_leaderboard_upstream_reads_total", 'sent="dropped"');
    const closedEarly = () =>
      metric("http_request_duration_seconds_count", 'route="/games/:gameId/leaderboard",status="499"');
    const closedEarly0 = await closedEarly();
    const url = new URL(await gateway.listen());
    const first = await fillTheBoardsCall();
    // Two clients that give up while their reads wait for the board's call, and one that stays.
    const leaving = ["leaving-1", "leaving-2"].map((playerId) => {
      const client = httpRequest({
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: "/games/g1/leaderboard",
        headers: { authorization: acme, "content-type": "application/json" },
      });
      client.on("error", () => {});
      client.end(JSON.stringify({ count: 2, playerId }));
      return client;
    });
    const staying = started([read({ count: 3, playerId: "staying" })]);
    await eventually(async () => (await metric("gateway_leaderboard_reads_waiting")) === 3, WITHIN);
    for (const client of leaving) client.destroy();
    // The kit records a request whose client left (status 499) once the gateway has seen it go.
    await eventually(async () => (await closedEarly()) === closedEarly0 + 2, WITHIN);
    holding = false;
    for (const send of held) send();
    const [, stayed] = await Promise.all([...first, ...staying]);
    expect(stayed!.text).toBe(JSON.stringify(answerOf({ count: 3, playerId: "staying" }, "acme")));
    // The first read, then the one still wanted, alone: the two that left never reached stats.
    expect(uploads()).toEqual(["/games/g1/leaderboard", "/games/g1/leaderboard"]);
    expect(JSON.parse(h.stats.received[1]!.body.toString("utf8"))).toEqual({ count: 3, playerId: "staying" });
    expect(await metric("gateway_leaderboard_upstream_reads_total", 'sent="dropped"')).toBe(dropped0 + 2);
    expect(await metric("gateway_leaderboard_reads_waiting")).toBe(0);
    const after = await read({ count: 9, playerId: "after" });
    expect(after.text).toBe(JSON.stringify(answerOf({ count: 9, playerId: "after" }, "acme")));
  });

  it("sends every read alone with LEADERBOARD_BATCH_READS=1", async () => {
    const single = await h.startInstance({ LEADERBOARD_CACHE_MS: "0", LEADERBOARD_BATCH_READS: "1" });
    const all = started([1, 2, 3, 4].map((i) => read({ count: i, playerId: `s${i}` }, acme, single)));
    await eventually(async () => held.length === 4, WITHIN);
    holding = false;
    for (const send of held) send();
    for (const res of await Promise.all(all)) expect(res.status).toBe(200);
    expect(uploads()).toEqual(Array.from({ length: 4 }, () => "/games/g1/leaderboard"));
  });
});

describe("the batch answer's layout (one answer to a line)", () => {
  const entry = fc.record({
    playerId: fc.string({ unit: "binary", maxLength: 20 }),
    rank: fc.integer({ min: 1 }),
    ranking_points: fc.integer({ min: 0 }),
  });
  const answer = fc.oneof(
    fc.record({
      status: fc.constant(200),
      body: fc.record({ leaderboard: fc.array(entry, { maxLength: 5 }), season: fc.constant("S1") }),
    }),
    fc.record({ status: fc.constantFrom(400, 404, 500, 503) }),
  );

  it("is the batch's JSON, and gives each success's leaderboard bytes exactly as JSON.stringify writes them", () => {
    fc.assert(
      fc.property(fc.array(answer, { minLength: 1, maxLength: 64 }), (answers) => {
        const text = leaderboardBatchText(answers.map(leaderboardBatchLine));
        expect(JSON.parse(text)).toEqual({ answers });
        const bodies = leaderboardBatchBodies(Buffer.from(text), answers.length);
        expect(bodies?.map((b) => b?.toString("utf8"))).toEqual(
          answers.map((a) => ("body" in a ? JSON.stringify(a.body) : undefined)),
        );
      }),
    );
  });

  it("refuses (undefined) any other text and count, never throwing", () => {
    const laidOut = Buffer.from(leaderboardBatchText([leaderboardBatchLine({ status: 404 })]));
    expect(leaderboardBatchBodies(laidOut, 2)).toBeUndefined();
    expect(
      leaderboardBatchBodies(Buffer.from(JSON.stringify({ answers: [{ status: 404 }] })), 1),
    ).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 1, max: 64 }), (bytes, reads) => {
        const bodies = leaderboardBatchBodies(Buffer.from(bytes), reads);
        expect(bodies === undefined || bodies.length === reads).toBe(true);
      }),
    );
  });
});
