import { ConfigError } from "@arena/service-kit";
import { eventually, promtoolCheckMetrics } from "@arena/service-kit/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { loadGatewayConfig } from "../src/config.js";
import { changesBoards } from "../src/routing/leaderboard-cache.js";
import { createHarness, type Harness, type Instance } from "./harness.js";
import type { StubHandler } from "./stats-stub.js";
import { serveInstance, WsClient } from "./ws-client.js";

/**
 * The leaderboard read cache against a stats stub that numbers its answers, so a test sees which
 * reads reached stats; time is the harness' manual clock. The behaviour against the real stats,
 * Redis and PostgreSQL (seasons, other replicas) is e2e/test/leaderboard-cache.test.ts.
 */
let h: Harness;
let acme: string;
let acmeAdmin: string;
let globex: string;
let answered = 0;
/** Leaderboard reads that reached stats. */
const reads = () => h.stats.received.filter((r) => r.url.endsWith("/leaderboard")).length;

const numbered: StubHandler = (req, res) => {
  if (!req.url.endsWith("/leaderboard")) {
    res.writeHead(req.method === "POST" && req.url === "/seasons" ? 201 : 200, {
      "content-type": "application/json",
    });
    res.end(JSON.stringify({ season: "S2", matchId: "m", players: [] }));
    return;
  }
  answered++;
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify({ leaderboard: [], season: `S${answered}`, tenant: req.headers["x-arena-tenant"] }));
};

beforeAll(async () => {
  h = await createHarness();
  const acmeClient = await h.createTenant("acme");
  const globexClient = await h.createTenant("globex");
  await h.createUser("acme", "acme-server");
  await h.createUser("acme", "acme-admin", "admin");
  await h.createUser("globex", "globex-server");
  acme = (await h.login("acme-server", acmeClient)).IdToken;
  acmeAdmin = (await h.login("acme-admin", acmeClient)).IdToken;
  globex = (await h.login("globex-server", globexClient)).IdToken;
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.stats.handler = numbered;
  // Past every entry of the test before (the default staleness bound is 1000 ms).
  h.clock.advance(60_000);
});

const read = (token: string, body: object = { count: 10 }, instance: Instance = h, game = "g1") =>
  instance.http.post(`/games/${game}/leaderboard`).set("Authorization", token).send(body);

describe("the leaderboard read cache", () => {
  it("answers a repeated read from the cache with Age, the rate limit still counted", async () => {
    const before = reads();
    const first = await read(acme);
    const second = await read(acme);
    expect(first.status).toBe(200);
    expect(first.headers.age).toBeUndefined();
    expect(second.status).toBe(200);
    expect(second.headers.age).toBe("0");
    expect(second.text).toBe(first.text);
    expect(second.headers["content-type"]).toMatch(/^application\/json/);
    expect(second.headers["cache-control"]).toBe("no-store");
    expect(reads() - before).toBe(1);
    expect(Number(second.headers["ratelimit-remaining"])).toBe(
      Number(first.headers["ratelimit-remaining"]) - 1,
    );
    h.clock.advance(700);
    expect((await read(acme)).headers.age).toBe("0");
    h.clock.advance(300);
    // 1000 ms after it was stored: stale, read again.
    const fresh = await read(acme);
    expect(fresh.headers.age).toBeUndefined();
    expect(fresh.text).not.toBe(first.text);
    expect(reads() - before).toBe(2);
  });

  it("keys by tenant, game and body: one tenant never gets another's answer", async () => {
    const a = await read(acme);
    const g = await read(globex);
    expect(a.body.tenant).toBe("acme");
    expect(g.body.tenant).toBe("globex");
    expect((await read(globex)).body.tenant).toBe("globex");
    expect((await read(acme)).body.tenant).toBe("acme");
    const before = reads();
    await read(acme, { count: 11 });
    await read(acme, { count: 10 }, h, "g2");
    // The same value in other bytes is another key (the key is the body as sent).
    await read(acme, { count: 10, season: "S1" });
    expect(reads() - before).toBe(3);
  });

  it("shares one upstream call among concurrent reads of one key", async () => {
    h.stats.handler = (req, res) => setTimeout(() => numbered(req, res), 100);
    const before = reads();
    const answers = await Promise.all(Array.from({ length: 10 }, () => read(acme, { count: 7 })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(reads() - before).toBe(1);
    const metrics = (await h.http.get("/metrics")).text;
    expect(metrics).toMatch(/gateway_leaderboard_cache_reads_total\{outcome="coalesced"[^}]*\} [1-9]/);
  });

  it("never keeps an error, and never shares one with the reads that joined it", async () => {
    let calls = 0;
    h.stats.handler = (req, res) => {
      calls++;
      if (calls === 1) {
        setTimeout(() => {
          res.writeHead(404, { "content-type": "application/problem+json" });
          res.end(JSON.stringify({ status: 404, code: "NOT_FOUND", title: "Not Found", detail: "no game" }));
        }, 50);
      } else numbered(req, res);
    };
    const [failed, joined] = await Promise.all([read(acme, { count: 3 }), read(acme, { count: 3 })]);
    expect(failed.status).toBe(404);
    expect(failed.body.code).toBe("NOT_FOUND");
    // The read that joined the failed call made its own.
    expect(joined.status).toBe(200);
    expect(calls).toBe(2);
    const again = await read(acme, { count: 3 });
    expect(again.status).toBe(200);
    expect(again.headers.age).toBe("0");
  });

  it("documents Age on the leaderboard's answer in the OpenAPI document", async () => {
    const doc = (await h.http.get("/openapi.json").expect(200)).body;
    const ok = doc.paths["/games/{gameId}/leaderboard"].post.responses["200"];
    expect(ok.headers.Age.schema).toEqual({ type: "integer", minimum: 0 });
    expect(doc.paths["/seasons"].get.responses["200"].headers).toBeUndefined();
  });

  it("checks the token before the cache", async () => {
    await read(acme);
    const res = await h.http.post("/games/g1/leaderboard").send({ count: 10 });
    expect(res.status).toBe(401);
    expect(res.headers.age).toBeUndefined();
  });

  it("drops the tenant's entries when a board-changing call goes through this replica (REST and WebSocket)", async () => {
    const first = await read(acme);
    const other = await read(globex);
    expect((await read(acme)).headers.age).toBe("0");
    const started = await h.http.post("/seasons").set("Authorization", acmeAdmin).send({});
    expect(started.status).toBe(201);
    const after = await read(acme);
    expect(after.headers.age).toBeUndefined();
    expect(after.text).not.toBe(first.text);
    // Another tenant's entries stay.
    expect((await read(globex)).text).toBe(other.text);

    // The WebSocket write and the reads through one more replica, served as main.ts serves it.
    const replica = await h.startInstance();
    const server = await serveInstance(replica);
    const client = await WsClient.open(`http://127.0.0.1:${server.port}`, acme);
    try {
      const cached = await read(acme, { count: 10 }, replica);
      expect((await read(acme, { count: 10 }, replica)).headers.age).toBe("0");
      const completed = await client.request("updateMatchCompleted", {
        gameId: "g1",
        matchId: "5f0c6d7e-8a9b-4c1d-9e2f-3a4b5c6d7e8f",
        teams: [{ rank: 0, players: [{ playerId: "p1", score: 3 }] }],
      });
      expect(completed.error).toBeUndefined();
      const fresh = await read(acme, { count: 10 }, replica);
      expect(fresh.headers.age).toBeUndefined();
      expect(fresh.text).not.toBe(cached.text);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it("a read in flight when the tenant's board changes is answered but not kept", async () => {
    let release: () => void = () => {};
    h.stats.handler = (req, res) => {
      if (req.url.endsWith("/leaderboard")) release = () => numbered(req, res);
      else numbered(req, res);
    };
    const before = reads();
    // supertest sends on then(): started now, held by the stub until released.
    const pending = read(acme, { count: 5 }).then((res) => res);
    await eventually(() => reads() !== before);
    await h.http.post("/seasons").set("Authorization", acmeAdmin).send({}).expect(201);
    release();
    expect((await pending).status).toBe(200);
    h.stats.handler = numbered;
    const next = await read(acme, { count: 5 });
    expect(next.headers.age).toBeUndefined();
  });

  it("never keeps an around-player read: each goes to stats", async () => {
    const before = reads();
    const first = await read(acme, { count: 5, playerId: "p1" });
    const second = await read(acme, { count: 5, playerId: "p1" });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.age).toBeUndefined();
    expect(second.text).not.toBe(first.text);
    expect(reads() - before).toBe(2);
  });

  it("evicts the least recently read entry past LEADERBOARD_CACHE_ENTRIES", async () => {
    const small = await h.startInstance({ LEADERBOARD_CACHE_ENTRIES: "2" });
    await read(acme, { count: 1 }, small);
    await read(acme, { count: 2 }, small);
    expect((await read(acme, { count: 1 }, small)).headers.age).toBe("0");
    await read(acme, { count: 3 }, small); // evicts count 2, the least recently read
    expect((await read(acme, { count: 1 }, small)).headers.age).toBe("0");
    expect((await read(acme, { count: 3 }, small)).headers.age).toBe("0");
    expect((await read(acme, { count: 2 }, small)).headers.age).toBeUndefined();
    const metrics = (await small.http.get("/metrics")).text;
    expect(metrics).toMatch(/^gateway_leaderboard_cache_entries\{[^}]*\} 2$/m);
    expect(promtoolCheckMetrics(metrics)).toEqual({ status: 0, output: "" });
  });

  it("is off with LEADERBOARD_CACHE_MS=0: every read reaches stats", async () => {
    const off = await h.startInstance({ LEADERBOARD_CACHE_MS: "0" });
    const before = reads();
    await read(acme, {}, off);
    const second = await read(acme, {}, off);
    expect(second.headers.age).toBeUndefined();
    expect(reads() - before).toBe(2);
  });
});

describe("its settings", () => {
  it.each([
    ["LEADERBOARD_CACHE_MS", "10001"],
    ["LEADERBOARD_CACHE_MS", "-1"],
    ["LEADERBOARD_CACHE_MS", "soon"],
    ["LEADERBOARD_CACHE_ENTRIES", "0"],
    ["LEADERBOARD_CACHE_ENTRIES", "100001"],
  ])("refuses %s=%s, naming it", (name, value) => {
    expect(() => loadGatewayConfig({ ...h.env, [name]: value })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ ...h.env, [name]: value })).toThrow(name);
  });

  it("defaults to 1000 ms and 1000 entries", () => {
    const config = loadGatewayConfig(h.env);
    expect(config.LEADERBOARD_CACHE_MS).toBe(1000);
    expect(config.LEADERBOARD_CACHE_ENTRIES).toBe(1000);
  });

  it("knows which calls change boards", () => {
    expect(changesBoards("POST", "/games/g1/matches/m1/statuses/completed")).toBe(true);
    expect(changesBoards("POST", "/seasons")).toBe(true);
    expect(changesBoards("DELETE", "/seasons/S3")).toBe(true);
    expect(changesBoards("POST", "/admin/season/reset")).toBe(true);
    expect(changesBoards("PUT", "/games/g1?x=1")).toBe(true);
    expect(changesBoards("POST", "/games/g1/leaderboard")).toBe(false);
    expect(changesBoards("POST", "/games/g1/players")).toBe(false);
    expect(changesBoards("POST", "/games/g1/matches/m1/statuses/failed")).toBe(false);
    expect(changesBoards("GET", "/seasons")).toBe(false);
  });
});
