import {
  type KeepAliveMessage,
  messageResponsePayloadValidators,
  type PlayersRemovedMessage,
  validateKeepAliveMessage,
  validateServerErrorMessage,
} from "@arena/contracts";
import { PushFanout } from "@arena/redis";
import type { RunningServer } from "@arena/service-kit";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { adminAuth, createHarness, type Harness, type Instance, SERVICE_TOKEN } from "./harness.js";
import type { ReceivedRequest } from "./stats-stub.js";
import { serveInstance, type TokenVia, WsClient } from "./ws-client.js";

const matchId = "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11";

let h: Harness;
let fanout: PushFanout;
let base: string;
let acmeClient: string;
let token: string;
let globexToken: string;
const running: RunningServer[] = [];
const clients: WsClient[] = [];

async function serveOn(instance: Instance): Promise<string> {
  const server = await serveInstance(instance);
  running.push(server);
  return `http://127.0.0.1:${server.port}`;
}

async function open(url = base, t = token, via: TokenVia = "query"): Promise<WsClient> {
  const client = await WsClient.open(url, t, via);
  clients.push(client);
  return client;
}

/** Stats answers `status` with `body` (JSON) to every call. */
function statsAnswers(status: number, body?: unknown): void {
  h.stats.handler = (_req, res) => {
    res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
}

beforeAll(async () => {
  h = await createHarness({ env: { USER_STATUS_CACHE_MS: "0" } });
  acmeClient = await h.createTenant("acme");
  const globexClient = await h.createTenant("globex");
  await h.createUser("acme", "server-eu");
  await h.createUser("globex", "globex-server");
  token = (await h.login("server-eu", acmeClient)).IdToken;
  globexToken = (await h.login("globex-server", globexClient)).IdToken;
  fanout = new PushFanout({ redis: h.redis.client(), keys: h.redis.keys });
  base = await serveOn(h);
});

afterAll(async () => {
  for (const client of clients) client.socket.terminate();
  for (const server of running) await server.stop().catch(() => {});
  await h?.close();
});

describe("the upgrade", () => {
  it("opens with the token in ?authorization=, in Authorization, or as Bearer", async () => {
    for (const via of ["query", "header", "bearer"] as const) {
      const client = await open(base, token, via);
      expect((await client.request("subscribe", { gameId: "g1" })).action).toBe("subscribeResponse");
      await client.close();
    }
  });

  it("answers 404 for another path", async () => {
    const other = await WsClient.refusal(base, token, { path: "/socket" });
    expect(other.status).toBe(404);
  });
});

describe("actions", () => {
  const player = { playerId: "p1", reference: "r1" };
  const cases = [
    {
      action: "addPlayer",
      payload: { gameId: "g1", players: [player] },
      method: "POST",
      url: "/games/g1/players",
      body: { players: [player] },
      prefer: "return=representation",
      status: 201,
      answer: { players: [{ ...player, state: "waiting" }] },
      response: { gameId: "g1", players: [{ ...player, state: "waiting" }] },
    },
    {
      action: "removePlayer",
      payload: { gameId: "g1", playerId: "p 1", force: true },
      method: "DELETE",
      url: "/games/g1/players/p%201?force=true",
      body: undefined,
      prefer: "return=representation",
      status: 204,
      answer: undefined,
      response: { gameId: "g1", playerId: "p 1", reference: null },
    },
    {
      action: "removePlayer",
      payload: { gameId: "g1", playerId: "p1" },
      method: "DELETE",
      url: "/games/g1/players/p1",
      body: undefined,
      prefer: "return=representation",
      status: 200,
      answer: { playerId: "p1", reference: "r1" },
      response: { gameId: "g1", playerId: "p1", reference: "r1" },
    },
    {
      action: "getPlayers",
      payload: { gameId: "g1" },
      method: "GET",
      url: "/games/g1/players",
      body: undefined,
      prefer: undefined,
      status: 200,
      answer: [{ ...player, state: "waiting" }],
      response: { gameId: "g1", players: [{ ...player, state: "waiting" }] },
    },
    {
      action: "getMatches",
      payload: { gameId: "g1" },
      method: "POST",
      url: "/games/g1/matches",
      body: undefined,
      prefer: undefined,
      status: 200,
      answer: [],
      response: { gameId: "g1", matches: [] },
    },
    {
      action: "updateMatchConfirmed",
      payload: { gameId: "g1", matchId },
      method: "POST",
      url: `/games/g1/matches/${matchId}/statuses/confirmed`,
      body: {},
      prefer: undefined,
      status: 204,
      answer: undefined,
      response: { gameId: "g1", matchId },
    },
    {
      action: "updateMatchFailed",
      payload: { gameId: "g1", matchId, requeue: ["p2"] },
      method: "POST",
      url: `/games/g1/matches/${matchId}/statuses/failed`,
      body: { requeue: ["p2"] },
      prefer: "return=representation",
      status: 200,
      answer: { removed: [], requeued: [{ playerId: "p2", reference: null }] },
      response: { gameId: "g1", matchId, removed: [], requeued: [{ playerId: "p2", reference: null }] },
    },
    {
      action: "updateMatchCompleted",
      payload: { gameId: "g1", matchId, teams: [{ rank: 0, players: [{ playerId: "p1", score: 3 }] }] },
      method: "POST",
      url: `/games/g1/matches/${matchId}/statuses/completed`,
      body: { teams: [{ rank: 0, players: [{ playerId: "p1", score: 3 }] }] },
      prefer: undefined,
      status: 200,
      answer: { players: [] },
      response: { gameId: "g1", matchId, players: [] },
    },
    {
      action: "requestBackfilling",
      payload: { gameId: "g1", matchId, droppedPlayerId: "p2" },
      method: "POST",
      url: `/games/g1/matches/${matchId}/backfill`,
      body: { droppedPlayerId: "p2" },
      prefer: undefined,
      status: 201,
      answer: { backfillingRequestId: "bf-1" },
      response: { gameId: "g1", matchId, backfillingRequestId: "bf-1" },
    },
    {
      action: "cancelBackfillingRequest",
      payload: { gameId: "g1", matchId, backfillingRequestId: "bf-1" },
      method: "DELETE",
      url: `/games/g1/matches/${matchId}/backfill/bf-1`,
      body: undefined,
      prefer: undefined,
      status: 200,
      answer: { backfillingRequestId: "bf-1", state: "cancelled" },
      response: { gameId: "g1", matchId, backfillingRequestId: "bf-1" },
    },
    {
      action: "getPlayerStats",
      payload: { playerId: "p1", seasons: ["S1", "S2"] },
      method: "POST",
      url: "/internal/actions/getPlayerStats",
      body: { playerId: "p1", seasons: ["S1", "S2"] },
      prefer: undefined,
      status: 200,
      answer: { playerId: "p1", totalMatchesPlayed: 0, totalWins: 0, totalLosses: 0, seasons: [] },
      response: { playerId: "p1", totalMatchesPlayed: 0, totalWins: 0, totalLosses: 0, seasons: [] },
    },
    {
      action: "matchSuggestionDelivery",
      payload: { gameId: "g1", matchId },
      method: "POST",
      url: `/games/g1/matches/${matchId}/delivery`,
      body: undefined,
      prefer: undefined,
      status: 204,
      answer: undefined,
      response: { gameId: "g1", matchId },
    },
  ] as const;

  it.each(cases.map((c) => ({ ...c, name: `${c.action} → ${c.method} ${c.url}` })))(
    "sends $name to stats and answers its response payload",
    async (c) => {
      const client = await open();
      statsAnswers(c.status, c.answer);
      const before = h.stats.received.length;
      const answer = await client.request(c.action, c.payload);
      expect(answer).toEqual({
        action: `${c.action}Response`,
        messageId: answer.messageId,
        payload: c.response,
      });
      const validate = messageResponsePayloadValidators[c.action];
      expect(validate(answer.payload)).toBe(true);
      const sent = h.stats.received.slice(before);
      expect(sent).toHaveLength(1);
      const req = sent[0] as ReceivedRequest;
      expect([req.method, req.url]).toEqual([c.method, c.url]);
      expect(req.body.length === 0 ? undefined : JSON.parse(req.body.toString())).toEqual(c.body);
      expect(req.headers.prefer).toBe(c.prefer);
      expect(req.headers.authorization).toBe(`Bearer ${SERVICE_TOKEN}`);
      expect(req.headers["x-arena-tenant"]).toBe("acme");
      expect(req.headers["x-arena-role"]).toBe("server");
      await client.close();
    },
  );

  it("answers a stats problem as the action's error with its status, detail and field errors under /payload", async () => {
    const client = await open();
    statsAnswers(409, {
      type: "x",
      title: "Conflict",
      status: 409,
      detail: "Player p1 is already waiting",
      code: "CONFLICT",
      errors: [{ pointer: "/players/0/playerId", detail: "is already waiting" }],
    });
    const answer = await client.request("addPlayer", { gameId: "g1", players: [{ playerId: "p1" }] });
    expect(answer).toEqual({
      action: "addPlayerResponse",
      messageId: answer.messageId,
      error: {
        code: 409,
        message: "Player p1 is already waiting",
        // Stats points into the REST body; the client sent a payload: the gateway's own convention.
        errors: [{ pointer: "/payload/players/0/playerId", detail: "is already waiting" }],
      },
    });
    expect(validateServerErrorMessage(answer)).toBe(true);
    statsAnswers(404, { status: 404, detail: "Player p9 is not known" });
    expect((await client.request("getPlayerStats", { playerId: "p9" })).error).toEqual({
      code: 404,
      message: "Player p9 is not known",
    });
  });

  it("answers 503 when stats cannot be reached, and keeps the connection", async () => {
    const instance = await h.startInstance({ STATS_URL: "http://127.0.0.1:1" });
    const client = await open(await serveOn(instance));
    const answer = await client.request("getPlayers", { gameId: "g1" });
    expect(answer.error.code).toBe(503);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });

  it("answers invalid payloads, unknown actions, malformed JSON and binary frames with errors", async () => {
    const client = await open();
    statsAnswers(200, []);
    const before = h.stats.received.length;
    const invalid = await client.request("addPlayer", { players: [{}] });
    expect(invalid).toMatchObject({ action: "addPlayerResponse", error: { code: 400 } });
    expect(invalid.error.errors).toContainEqual({ pointer: "/payload/gameId", detail: "is required" });

    const unknown = await client.request("getEverything", {});
    expect(unknown.action).toBe("errorResponse");
    expect(unknown.error.code).toBe(400);
    expect(unknown.error.errors[0].pointer).toBe("/action");

    let from = client.received.length;
    client.send("{not json");
    const malformed = await client.next(() => true, from);
    expect(malformed).toMatchObject({ action: "errorResponse", messageId: null, error: { code: 400 } });

    from = client.received.length;
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    const binary = await client.next(() => true, from);
    expect(binary).toMatchObject({ action: "errorResponse", messageId: null, error: { code: 400 } });
    expect(validateServerErrorMessage(binary)).toBe(true);

    expect(h.stats.received.length).toBe(before);
    expect((await client.request("getPlayers", { gameId: "g1" })).payload).toEqual({
      gameId: "g1",
      players: [],
    });
  });

  it("counts messages against the tenant's rate limit, as REST requests", async () => {
    const instance = await h.startInstance({ TENANT_RATE_LIMIT: "2", TENANT_RATE_WINDOW_SECONDS: "600" });
    const client = await open(await serveOn(instance), globexToken);
    statsAnswers(200, []);
    expect((await client.request("getPlayers", { gameId: "g1" })).payload).toBeDefined();
    expect((await client.request("getPlayers", { gameId: "g1" })).payload).toBeDefined();
    expect((await client.request("getPlayers", { gameId: "g1" })).error.code).toBe(429);
  });

  it("refuses messages past the in-flight limit with 429 and answers the others", async () => {
    const instance = await h.startInstance({ WS_MAX_IN_FLIGHT: "2" });
    const client = await open(await serveOn(instance));
    const held: Array<() => void> = [];
    h.stats.handler = (_req, res) => {
      held.push(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("[]");
      });
    };
    const first = client.request("getPlayers", { gameId: "g1" });
    const second = client.request("getPlayers", { gameId: "g1" });
    await eventually(() => held.length === 2);
    const third = await client.request("getPlayers", { gameId: "g1" });
    expect(third.error).toEqual({
      code: 429,
      message: "At most 2 messages may await an answer on one connection",
    });
    for (const release of held) release();
    expect((await first).payload).toEqual({ gameId: "g1", players: [] });
    expect((await second).payload).toEqual({ gameId: "g1", players: [] });
  });

  it("closes with 1009 on a message above the size limit", async () => {
    const instance = await h.startInstance({ WS_MAX_MESSAGE_BYTES: "2048" });
    const client = await open(await serveOn(instance));
    client.send({ action: "getPlayers", messageId: "big", payload: { gameId: "g1", pad: "x".repeat(4096) } });
    expect((await client.closed).code).toBe(1009);
  });

  it("still answers a reference getPlayers exactly as before after arbitrary frames", async () => {
    const client = await open();
    statsAnswers(200, [{ playerId: "p1", reference: null, state: "waiting" }]);
    const reference = await client.request("getPlayers", { gameId: "g1" });
    const frame = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc.record({
        action: fc.oneof(
          fc.constantFrom("addPlayer", "subscribe", "getPlayers", "removePlayer"),
          fc.string(),
        ),
        messageId: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
        payload: fc.anything({ maxDepth: 2 }),
      }),
      fc.uint8Array({ maxLength: 64 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 5 }), async (frames) => {
        for (const f of frames) {
          if (f instanceof Uint8Array) client.socket.send(f, { binary: true });
          else client.send(typeof f === "string" ? f : JSON.stringify(f));
        }
        const again = await client.request("getPlayers", { gameId: "g1" });
        expect(again.payload).toEqual(reference.payload);
        expect(client.socket.readyState).toBe(client.socket.OPEN);
      }),
      { numRuns: 60 },
    );
  });
});

describe("malformed messages", () => {
  let initechToken: string;
  beforeAll(async () => {
    const client = await h.createTenant("initech");
    await h.createUser("initech", "initech-server");
    initechToken = (await h.login("initech-server", client)).IdToken;
  });

  /** 200 KB frames of each kind the gateway cannot run: not JSON, binary, an invalid payload. */
  const floods = [
    (client: WsClient) => client.send(`{"action":"getPlayers","payload":"${"x".repeat(200_000)}`),
    (client: WsClient) => client.socket.send(Buffer.alloc(200_000, 7), { binary: true }),
    (client: WsClient) => client.send({ action: "getPlayers", payload: { pad: "x".repeat(200_000) } }),
  ];

  /** Sends `n` malformed frames and waits for their n answers (400, or whatever refused them). */
  async function sendMalformed(client: WsClient, n: number): Promise<Array<{ code: number }>> {
    const from = client.received.length;
    for (let i = 0; i < n; i++) floods[i % floods.length]!(client);
    await eventually(
      () => client.received.length >= from + n || client.socket.readyState !== client.socket.OPEN,
    );
    return client.received.slice(from).map((m) => m.error);
  }

  it("counts each against the tenant's rate limit like any message, before reading it", async () => {
    const instance = await h.startInstance({ TENANT_RATE_LIMIT: "3", TENANT_RATE_WINDOW_SECONDS: "600" });
    const client = await open(await serveOn(instance), initechToken);
    statsAnswers(200, []);
    const errors = await sendMalformed(client, 3);
    expect(errors.map((e) => e.code)).toEqual([400, 400, 400]);
    // The budget of 3 went to the malformed frames: the next message, and the next frame, are refused.
    expect((await client.request("getPlayers", { gameId: "g1" })).error.code).toBe(429);
    expect((await sendMalformed(client, 1)).map((e) => e.code)).toEqual([429]);
  });

  it("closes a connection with 1008 after WS_MAX_MALFORMED_MESSAGES of them in a row", async () => {
    const client = await open(base, initechToken);
    statsAnswers(200, []);
    // Nine in a row, then a message that runs: the count starts again.
    expect(await sendMalformed(client, 9)).toHaveLength(9);
    expect((await client.request("getPlayers", { gameId: "g1" })).payload).toEqual({
      gameId: "g1",
      players: [],
    });
    expect(await sendMalformed(client, 9)).toHaveLength(9);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    // The tenth in a row is answered, then the connection is closed.
    const last = await sendMalformed(client, 1);
    expect(last).toEqual([expect.objectContaining({ code: 400 })]);
    expect(await client.closed).toEqual({ code: 1008, reason: "too many malformed messages" });
    const metrics = await h.http.get("/metrics");
    expect(metrics.text).toMatch(/gateway_ws_closed_total\{reason="malformed"[^}]*\} 1/);
  });

  it("refuses the user's upgrades to that replica for WS_MALFORMED_COOLDOWN_MS after such a close", async () => {
    // The close of the test above: reconnecting at once would buy the flood ten more frames.
    const refused = await WsClient.refusal(base, initechToken);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("10");
    expect(refused.body).toMatchObject({ code: "RATE_LIMITED", detail: expect.stringMatching(/malformed/) });
    // Other users, and the user on other replicas, may connect.
    await open(base, token);
    await open(await serveOn(await h.startInstance()), initechToken);
    h.clock.advance(10_000);
    await open(base, initechToken);
    const metrics = await h.http.get("/metrics");
    expect(metrics.text).toMatch(/gateway_ws_upgrades_refused_total\{reason="cooldown"[^}]*\} 1/);
  });
});

describe("subscriptions and pushes", () => {
  const suggestion = (n: number) => ({
    action: "matchSuggestion",
    messageId: null,
    payload: { gameId: "pushed", n },
  });

  it("answers subscribe with the games, priority and rate limit it stored", async () => {
    const client = await open();
    const answer = await client.request("subscribe", { gameId: "a", gameIds: ["b", "a"], priority: 3 });
    expect(answer.payload).toEqual({ gameIds: ["b", "a"], priority: 3, rateLimit: null });
    expect(messageResponsePayloadValidators.subscribe(answer.payload)).toBe(true);
    await client.close();
  });

  it("delivers each offer to exactly one connection, round-robin across two replicas", async () => {
    const replica = await serveOn(await h.startInstance());
    const subscribers = [await open(base), await open(base), await open(replica)];
    for (const client of subscribers) await client.request("subscribe", { gameId: "pushed" });
    const chosen: (string | null)[] = [];
    for (let n = 0; n < 6; n++) chosen.push(await fanout.offer("acme", "pushed", suggestion(n)));
    expect(new Set(chosen).size).toBe(3);
    await eventually(() => subscribers.every((c) => c.pushes("matchSuggestion").length === 2));
    const all = subscribers.flatMap((c) => c.pushes("matchSuggestion").map((m) => m.payload.n));
    expect(all.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const push of subscribers[0]!.pushes("matchSuggestion"))
      expect(push).toEqual(suggestion(push.payload.n));
    for (const client of subscribers) await client.close();
  });

  it("gives pushes to the highest priority, and honours a connection's rate limit", async () => {
    const low = await open();
    const high = await open();
    await low.request("subscribe", { gameId: "prio" });
    await high.request("subscribe", { gameIds: ["prio"], priority: 5, rateLimit: 2 });
    const offer = (n: number) =>
      fanout.offer("acme", "prio", { action: "matchSuggestion", messageId: null, n });
    const first = [await offer(1), await offer(2)];
    const third = await offer(3);
    expect(first[0]).toBe(first[1]);
    expect(third).not.toBe(first[0]);
    await eventually(
      () => high.pushes("matchSuggestion").length === 2 && low.pushes("matchSuggestion").length === 1,
    );
    expect(high.pushes("matchSuggestion").map((m) => m.n)).toEqual([1, 2]);
    expect(low.pushes("matchSuggestion").map((m) => m.n)).toEqual([3]);
    await low.close();
    await high.close();
  });

  it("broadcasts to every subscriber of the tenant's game, and to no one else", async () => {
    const subscribed = [await open(), await open()];
    const otherGame = await open();
    const otherTenant = await open(base, globexToken);
    for (const client of subscribed) await client.request("subscribe", { gameId: "bcast" });
    await otherGame.request("subscribe", { gameId: "elsewhere" });
    await otherTenant.request("subscribe", { gameId: "bcast" });
    const removed: PlayersRemovedMessage = {
      action: "playersRemoved",
      messageId: null,
      payload: { gameId: "bcast", reason: "expired", players: [{ playerId: "p1", reference: null }] },
    };
    await fanout.broadcast("acme", "bcast", removed);
    await eventually(() => subscribed.every((c) => c.pushes("playersRemoved").length === 1));
    expect(subscribed[0]!.pushes("playersRemoved")[0]).toEqual(removed);
    // A later push proves the others had their chance to receive the broadcast.
    await fanout.broadcast("globex", "bcast", { action: "marker" });
    await eventually(() => otherTenant.pushes("marker").length === 1);
    expect(otherGame.pushes("playersRemoved")).toEqual([]);
    expect(otherTenant.pushes("playersRemoved")).toEqual([]);
  });

  it("tells stats when a subscribed connection closes, and unregisters it", async () => {
    statsAnswers(204);
    const client = await open();
    await client.request("subscribe", { gameId: "closing" });
    const connectionId = await fanout.offer("acme", "closing", {
      action: "matchSuggestion",
      messageId: null,
    });
    expect(connectionId).toMatch(/^[0-9a-f]+\.\d+$/);
    await client.close();
    let notice: ReceivedRequest | undefined;
    await eventually(() => {
      notice = h.stats.received.find((r) => r.url === `/internal/connections/${connectionId}/closed`);
      return notice !== undefined;
    });
    expect(notice!.method).toBe("POST");
    expect(notice!.headers["x-arena-tenant"]).toBe("acme");
    expect(notice!.headers.authorization).toBe(`Bearer ${SERVICE_TOKEN}`);
    await eventually(async () => (await fanout.offer("acme", "closing", {})) === null);
  });

  it("reports a push that races the close again, for a minute by the clock", async () => {
    statsAnswers(204);
    const url = await serveOn(await h.startInstance());
    const push = { action: "matchSuggestion", messageId: null };
    const closing = await open(url);
    await closing.request("subscribe", { gameId: "racing" });
    const closedId = (await fanout.offer("acme", "racing", push)) ?? "";
    const live = await open(url);
    await live.request("subscribe", { gameId: "racing" });
    const liveId = (await fanout.offer("acme", "racing", push, [closedId])) ?? "";
    const target = (connectionId: string) => ({ connectionId, replica: connectionId.split(".")[0]! });
    const notices = () =>
      h.stats.received.filter((r) => r.url === `/internal/connections/${closedId}/closed`).length;
    await closing.close();
    await eventually(() => notices() === 1);
    /** A push to the closed connection, then one to the live one: resolves once both were handled. */
    const late = async () => {
      const before = live.pushes("matchSuggestion").length;
      await fanout.send("acme", "racing", [{ target: target(closedId), message: push }]);
      await fanout.send("acme", "racing", [{ target: target(liveId), message: push }]);
      await eventually(() => live.pushes("matchSuggestion").length > before);
    };
    await late();
    await eventually(() => notices() === 2);
    h.clock.advance(61_000);
    try {
      await late();
      await new Promise((r) => setTimeout(r, 100));
      expect(notices()).toBe(2);
    } finally {
      h.clock.advance(-61_000);
    }
  });

  it("does not call stats when a connection that never subscribed closes", async () => {
    const notices = () => h.stats.received.filter((r) => r.url.startsWith("/internal/connections/")).length;
    await new Promise((r) => setTimeout(r, 100));
    const before = notices();
    const client = await open();
    await client.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(notices()).toBe(before);
  });

  it("sends keepAlive pushes and closes a connection at the end of its lifetime", async () => {
    const instance = await h.startInstance({ WS_KEEPALIVE_MS: "50", WS_MAX_LIFETIME_MS: "400" });
    const client = await open(await serveOn(instance));
    await client.next(() => client.pushes("keepAlive").length >= 2);
    const [first, second] = client.pushes("keepAlive") as KeepAliveMessage[];
    expect(first).toEqual({
      action: "keepAlive",
      messageId: expect.stringMatching(/^keepAlive-/),
      payload: {},
    });
    expect(validateKeepAliveMessage(first)).toBe(true);
    // Each round has an id of its own.
    expect(second!.messageId).not.toBe(first!.messageId);
    const closed = await client.closed;
    expect(closed.code).toBe(4000);
    expect(closed.reason).toMatch(/lifetime/);
  });

  it("drops a client that does not read instead of buffering without bound", async () => {
    const instance = await h.startInstance({ WS_MAX_BUFFERED_BYTES: "65536" });
    const client = await open(await serveOn(instance));
    await client.request("subscribe", { gameId: "flood" });
    (client.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = { action: "matchSuggestion", messageId: null, payload: { pad: "x".repeat(60_000) } };
    for (let i = 0; i < 1000 && instance.gateway.websocket.size > 0; i++) {
      await fanout.broadcast("acme", "flood", big);
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 5));
    }
    await eventually(() => instance.gateway.websocket.size === 0);
    const metrics = await instance.http.get("/metrics");
    expect(metrics.text).toMatch(/gateway_ws_closed_total\{reason="backpressure"[^}]*\} 1/);
  });

  it("closes a disabled user's connections on every replica", async () => {
    await h.createUser("acme", "soon-disabled");
    const userToken = (await h.login("soon-disabled", acmeClient)).IdToken;
    const replica = await serveOn(await h.startInstance());
    const here = await open(base, userToken);
    const there = await open(replica, userToken);
    const bystander = await open(replica, token);
    await h.http
      .patch("/admin/tenants/acme/users/soon-disabled")
      .set(adminAuth)
      .send({ disabled: true })
      .expect(200);
    expect((await here.closed).code).toBe(4001);
    expect((await there.closed).code).toBe(4001);
    expect(bystander.socket.readyState).toBe(bystander.socket.OPEN);
  });

  it("closes a user's connections at the periodic check when the notice was missed", async () => {
    await h.createUser("acme", "quietly-disabled");
    const userToken = (await h.login("quietly-disabled", acmeClient)).IdToken;
    const instance = await h.startInstance({ WS_REGISTRATION_REFRESH_MS: "50" });
    const client = await open(await serveOn(instance), userToken);
    // Straight to the database, as another tool might: no notice on Redis.
    await instance.gateway.identity.setDisabled("acme", "quietly-disabled", true);
    expect((await client.closed).code).toBe(4001);
  });
});

describe("connections per tenant and per user, counted on each replica", () => {
  let otherAcmeToken: string;
  beforeAll(async () => {
    await h.createUser("acme", "server-us");
    otherAcmeToken = (await h.login("server-us", acmeClient)).IdToken;
  });

  it("keeps one token from taking a replica's every connection: other users and tenants still connect", async () => {
    const instance = await h.startInstance({
      WS_MAX_CONNECTIONS: "8",
      WS_MAX_CONNECTIONS_PER_TENANT: "3",
      WS_MAX_CONNECTIONS_PER_USER: "2",
    });
    const url = await serveOn(instance);
    const mine = [await open(url), await open(url)];
    const user = await WsClient.refusal(url, token);
    expect(user.status).toBe(503);
    expect(user.headers["retry-after"]).toBe("1");
    expect(user.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", detail: expect.stringMatching(/user/) });

    await open(url, otherAcmeToken);
    const tenant = await WsClient.refusal(url, otherAcmeToken);
    expect(tenant.status).toBe(503);
    expect(tenant.headers["retry-after"]).toBe("1");
    expect(tenant.body.detail).toMatch(/Tenant acme holds its maximum of 3/);

    const globex = await open(url, globexToken);
    expect((await globex.request("subscribe", { gameId: "g1" })).action).toBe("subscribeResponse");

    // A closed connection gives its place back.
    await mine[0]!.close();
    await eventually(() => instance.gateway.websocket.size === 3);
    await open(url);
    const metrics = await instance.http.get("/metrics");
    expect(metrics.text).toMatch(/gateway_ws_upgrades_refused_total\{reason="user"[^}]*\} 1/);
    expect(metrics.text).toMatch(/gateway_ws_upgrades_refused_total\{reason="tenant"[^}]*\} 1/);
  });

  it("admits exactly the user's limit of concurrent upgrades", async () => {
    const instance = await h.startInstance({ WS_MAX_CONNECTIONS_PER_USER: "3" });
    const url = await serveOn(instance);
    const attempts = await Promise.allSettled(Array.from({ length: 12 }, () => open(url)));
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(3);
    const refused = attempts.flatMap((a) =>
      a.status === "rejected" ? [a.reason as { status: number }] : [],
    );
    expect(refused.map((r) => r.status)).toEqual(Array(9).fill(503));
  });
});

describe("graceful shutdown", () => {
  it("answers in-flight messages, then closes with 1001", async () => {
    const instance = await h.startInstance();
    const server = await serveInstance(instance);
    const client = await open(`http://127.0.0.1:${server.port}`);
    const idle = await open(`http://127.0.0.1:${server.port}`);
    let release!: () => void;
    h.stats.handler = (_req, res) => {
      release = () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("[]");
      };
    };
    const answer = client.request("getPlayers", { gameId: "g1" });
    await eventually(() => release !== undefined);
    const stopped = server.stop();
    expect((await idle.closed).code).toBe(1001);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    release();
    expect((await answer).payload).toEqual({ gameId: "g1", players: [] });
    expect((await client.closed).code).toBe(1001);
    await stopped;
  });
});
