import { validateBackfillStatus, validateMatchSuggestionMessage } from "@arena/contracts";
import { type FanoutDelivery, PushFanout } from "@arena/redis";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";

let h: Harness;
let fanout: PushFanout;
const deliveries: FanoutDelivery[] = [];
let stopListening: () => Promise<void>;

beforeAll(async () => {
  // A stats app wired to the real fan-out (made once the harness has its Redis), and a "gateway
  // replica" listening on it.
  h = await createHarness({
    pusher: {
      choose: (...a) => fanout.choose(...a),
      send: (...a) => fanout.send(...a),
      offerMany: (...a) => fanout.offerMany(...a),
      hasSubscribers: (...a) => fanout.hasSubscribers(...a),
      gone: (...a) => fanout.gone(...a),
      broadcast: (...a) => fanout.broadcast(...a),
    },
  });
  fanout = new PushFanout({ redis: h.redis, keys: h.testRedis.keys });
  stopListening = await fanout.listen("replica-a", {
    delivery: (d) => deliveries.push(d),
    broadcast: () => {},
  });
});
afterAll(async () => {
  await stopListening();
  await h.close();
});

let tenantSeq = 0;
async function tenantWithGame(size: number) {
  const tenant = `push-${++tenantSeq}`;
  await h
    .as(tenant)
    .put("/games/g", {
      numTeams: 2,
      numPlayersPerTeam: size,
      servers: ["eu-1", "us-1"],
      targetWaitingTime: 0,
    })
    .expect(200);
  return { tenant, api: h.as(tenant, "server") };
}
const queue = (api: ReturnType<Harness["as"]>, ids: string[]) =>
  api.post("/games/g/players", { players: ids.map((playerId) => ({ playerId })) }).expect(204);

/** How long the tests wait for a push to reach the listening replica (`eventually`'s options). */
const WITHIN = { timeoutMs: 3000 };

describe("match suggestions pushed to subscribers", () => {
  it("pushes a new suggestion to one subscribed connection and marks it delivered", async () => {
    const { tenant, api } = await tenantWithGame(1);
    await fanout.register(
      tenant,
      "replica-a",
      "replica-a.1",
      { gameIds: ["g"], priority: 0, rateLimit: null },
      30_000,
    );
    await queue(api, ["a1", "a2"]);
    await h.stats.loop.runOnce();
    const pushed = await eventually(() => deliveries.find((d) => d.tenantId === tenant), WITHIN);
    const message = JSON.parse(pushed.message);
    expect(validateMatchSuggestionMessage(message)).toBe(true);
    expect(pushed.connectionId).toBe("replica-a.1");
    // Delivered by the push: a REST fetch does not deliver it a second time.
    expect((await api.post("/games/g/matches")).body).toEqual([]);
    expect((await api.get(`/games/g/matches/${message.payload.match.id}`)).body.status).toBe("delivered");
  });

  it("offers what a closed connection never acknowledged to another one, and never what it did", async () => {
    const { tenant, api } = await tenantWithGame(1);
    await fanout.register(
      tenant,
      "replica-a",
      "replica-a.2",
      { gameIds: ["g"], priority: 0, rateLimit: null },
      30_000,
    );
    await queue(api, ["b1", "b2", "b3", "b4"]);
    await h.stats.loop.runOnce();
    const first = await eventually(() => {
      const mine = deliveries.filter((d) => d.tenantId === tenant);
      return mine.length === 2 ? mine : undefined;
    }, WITHIN);
    const [acked, unacked] = first.map((d) => JSON.parse(d.message).payload.match.id as string);
    await api.post(`/games/g/matches/${acked}/delivery`).expect(204);
    await api.post(`/games/g/matches/${acked}/delivery`).expect(204);
    // The connection closes; another subscribes.
    await fanout.unregister(tenant, "replica-a.2");
    await fanout.register(
      tenant,
      "replica-a",
      "replica-a.3",
      { gameIds: ["g"], priority: 0, rateLimit: null },
      30_000,
    );
    await api.post("/internal/connections/replica-a.2/closed").expect(204);
    const again = await eventually(
      () => deliveries.find((d) => d.tenantId === tenant && d.connectionId === "replica-a.3"),
      WITHIN,
    );
    expect(JSON.parse(again.message).payload.match.id).toBe(unacked);
    expect(deliveries.filter((d) => d.tenantId === tenant)).toHaveLength(3);
  });

  it("offers again what it pushed to a connection whose replica died without a close notice, once its registration expired", async () => {
    const REGISTRATION_MS = 3000;
    const { tenant, api } = await tenantWithGame(1);
    const subscription = { gameIds: ["g"], priority: 0, rateLimit: null };
    // A replica that is killed: its registration is never refreshed, and no close notice comes.
    // Its registration lives 3 s: long enough for the steps below on a loaded CI machine (400 ms
    // was not: it expired before the "still alive" check).
    await fanout.register(tenant, "replica-a", "replica-a.7", subscription, REGISTRATION_MS);
    const registeredAt = Date.now();
    await queue(api, ["e1", "e2"]);
    await h.stats.loop.runOnce();
    const first = await eventually(() => deliveries.find((d) => d.tenantId === tenant), WITHIN);
    expect(first.connectionId).toBe("replica-a.7");
    const matchId = JSON.parse(first.message).payload.match.id as string;
    // A live replica, listening for its pushes like replica-a.
    const stopB = await fanout.listen("replica-b", {
      delivery: (d) => deliveries.push(d),
      broadcast: () => {},
    });
    await fanout.register(tenant, "replica-b", "replica-b.1", subscription, 30_000);
    // While the first registration lives, its unacknowledged push stays with it.
    await h.stats.loop.runOnce();
    expect(deliveries.filter((d) => d.tenantId === tenant)).toHaveLength(1);
    expect(await fanout.gone(tenant, ["replica-a.7", "replica-b.1"])).toEqual([]);
    await new Promise((r) => setTimeout(r, Math.max(0, registeredAt + REGISTRATION_MS + 50 - Date.now())));
    expect(await fanout.gone(tenant, ["replica-a.7", "replica-b.1"])).toEqual(["replica-a.7"]);
    await h.stats.loop.runOnce();
    const again = await eventually(
      () => deliveries.find((d) => d.tenantId === tenant && d.connectionId === "replica-b.1"),
      WITHIN,
    );
    expect(JSON.parse(again.message).payload.match.id).toBe(matchId);
    // Acknowledged by the live connection: never offered a third time.
    await api.post(`/games/g/matches/${matchId}/delivery`).expect(204);
    await h.stats.loop.runOnce();
    expect(deliveries.filter((d) => d.tenantId === tenant)).toHaveLength(2);
    await stopB();
  });

  it("leaves a suggestion fetchable by REST when nobody is subscribed, and pushes it to a later subscriber", async () => {
    const { tenant, api } = await tenantWithGame(1);
    await queue(api, ["c1", "c2"]);
    await h.stats.loop.runOnce();
    expect(deliveries.filter((d) => d.tenantId === tenant)).toHaveLength(0);
    await fanout.register(
      tenant,
      "replica-a",
      "replica-a.4",
      { gameIds: ["g"], priority: 0, rateLimit: null },
      30_000,
    );
    await h.stats.loop.runOnce();
    await eventually(() => deliveries.find((d) => d.tenantId === tenant), WITHIN);
    expect((await api.post("/games/g/matches")).body).toEqual([]);
  });
});

describe("a subscribed game's suggestions, batched", () => {
  it("sets a tick's suggestions aside for the push, so REST gets only what no connection could take", async () => {
    const { tenant, api } = await tenantWithGame(1);
    // Two connections, three pushes a minute each: six of the ten matches can be pushed.
    for (const n of [5, 6]) {
      await fanout.register(
        tenant,
        "replica-a",
        `replica-a.${n}`,
        { gameIds: ["g"], priority: 0, rateLimit: 3 },
        30_000,
      );
    }
    await queue(
      api,
      Array.from({ length: 20 }, (_, i) => `d${i}`),
    );
    // A REST poller racing the tick: whatever it fetches was never pushed.
    let polling = true;
    const fetched: string[] = [];
    const poller = (async () => {
      while (polling) {
        const res = await api.post("/games/g/matches").expect(200);
        fetched.push(...res.body.map((m: { id: string }) => m.id));
      }
    })();
    await h.stats.loop.runOnce();
    polling = false;
    await poller;
    fetched.push(...(await api.post("/games/g/matches").expect(200)).body.map((m: { id: string }) => m.id));
    const pushed = (
      await eventually(() => {
        const mine = deliveries.filter((d) => d.tenantId === tenant);
        return mine.length === 6 ? mine : undefined;
      }, WITHIN)
    ).map((d) => JSON.parse(d.message).payload.match.id as string);
    expect(new Set(pushed).size).toBe(6);
    expect(fetched).toHaveLength(4);
    expect(fetched.filter((id) => pushed.includes(id))).toEqual([]);
    const perConnection = Map.prototype.get.bind(
      deliveries
        .filter((d) => d.tenantId === tenant)
        .reduce((m, d) => m.set(d.connectionId, (m.get(d.connectionId) ?? 0) + 1), new Map<string, number>()),
    );
    expect([perConnection("replica-a.5"), perConnection("replica-a.6")]).toEqual([3, 3]);
    for (const id of pushed) expect((await api.get(`/games/g/matches/${id}`)).body.status).toBe("delivered");
  });

  it("puts back a suggestion a dead process set aside for a push and never pushed", async () => {
    const { tenant, api } = await tenantWithGame(1);
    await queue(api, ["e1", "e2"]);
    await h.stats.loop.runOnce();
    const [match] = (await h.db.$queryRawUnsafe(
      `UPDATE matches SET status = 'delivered', pushed_to = NULL, acked_at = NULL
        WHERE tenant_id = $1 RETURNING match_id`,
      tenant,
    )) as Array<{ match_id: string }>;
    // Within the grace period it is an in-flight push: left alone.
    await h.stats.matchLifecycle.offerUndelivered(tenant, "g");
    expect((await api.post("/games/g/matches")).body).toEqual([]);
    h.clock.advance(31_000);
    await h.stats.matchLifecycle.offerUndelivered(tenant, "g");
    const fetched = (await api.post("/games/g/matches").expect(200)).body;
    expect(fetched.map((m: { id: string }) => m.id)).toEqual([match!.match_id]);
  });
});

describe("backfill", () => {
  /** A confirmed 2v2 match of p0..p3, and its teams. */
  async function runningMatch(api: ReturnType<Harness["as"]>, prefix: string) {
    await queue(
      api,
      [0, 1, 2, 3].map((i) => `${prefix}${i}`),
    );
    await h.stats.loop.runOnce();
    const [match] = (await api.post("/games/g/matches")).body;
    await api.post(`/games/g/matches/${match.id}/statuses/confirmed`).expect(204);
    return match as { id: string; teams: Array<{ players: Array<{ playerId: string }> }> };
  }

  it("finds a waiting player for a dropped seat, delivers it, and completion counts it in", async () => {
    const { tenant, api } = await tenantWithGame(2);
    const match = await runningMatch(api, "bf");
    const dropped = match.teams[0]!.players[0]!.playerId;
    const stay = match.teams[0]!.players[1]!.playerId;
    const others = match.teams[1]!.players.map((p) => p.playerId);
    await queue(api, ["sub"]);
    const created = await api
      .post(`/games/g/matches/${match.id}/backfill`, {
        droppedPlayerId: dropped,
        backfillingRequestId: "req-1",
      })
      .expect(201);
    expect(created.body).toEqual({ backfillingRequestId: "req-1" });
    // A retry of the same request is the same request.
    await api
      .post(`/games/g/matches/${match.id}/backfill`, {
        droppedPlayerId: dropped,
        backfillingRequestId: "req-1",
      })
      .expect(201);
    const status = await api.get(`/games/g/matches/${match.id}/backfill/req-1`).expect(200);
    expect(validateBackfillStatus(status.body)).toBe(true);
    expect(status.body).toMatchObject({
      state: "delivered",
      replacement: { playerId: "sub", reference: null },
    });
    const push = deliveries.find(
      (d) => d.tenantId === tenant && JSON.parse(d.message).action === "backfillingMatchSuggestion",
    );
    expect(push).toBeUndefined(); // nobody of this tenant subscribed
    expect(
      (await api.get(`/games/g/matches/${match.id}`)).body.teams[0].players
        .map((p: { playerId: string }) => p.playerId)
        .sort(),
    ).toEqual([stay, "sub"].sort());
    // The roster completion checks: the replacement in, the dropped player optional.
    const missing = await api.post(`/games/g/matches/${match.id}/statuses/completed`, {
      teams: [
        { rank: 0, players: [{ playerId: stay, score: 1 }] },
        { rank: 1, players: others.map((playerId) => ({ playerId, score: 1 })) },
      ],
    });
    expect(missing.status).toBe(400);
    const done = await api.post(`/games/g/matches/${match.id}/statuses/completed`, {
      teams: [
        { rank: 0, players: [stay, "sub"].map((playerId) => ({ playerId, score: 1 })) },
        { rank: 1, players: others.map((playerId) => ({ playerId, score: 1 })) },
      ],
    });
    expect(done.status).toBe(200);
  });

  it("searches until a player arrives, times out otherwise; cancelling a delivered one requeues the replacement", async () => {
    const { api } = await tenantWithGame(2);
    const match = await runningMatch(api, "bt");
    const [a, b] = match.teams[0]!.players.map((p) => p.playerId);
    await api
      .post(`/games/g/matches/${match.id}/backfill`, { droppedPlayerId: a, backfillingRequestId: "wait" })
      .expect(201);
    expect((await api.get(`/games/g/matches/${match.id}/backfill/wait`)).body.state).toBe("searching");
    await queue(api, ["late"]);
    await h.stats.loop.runOnce();
    expect((await api.get(`/games/g/matches/${match.id}/backfill/wait`)).body.state).toBe("delivered");
    const cancelled = await api.delete(`/games/g/matches/${match.id}/backfill/wait`).expect(200);
    expect(cancelled.body.state).toBe("cancelled");
    const waiting = (await api.get("/games/g/players")).body as Array<{ playerId: string; state: string }>;
    expect(waiting).toContainEqual({ playerId: "late", state: "waiting", reference: null });

    await api
      .post(`/games/g/matches/${match.id}/backfill`, { droppedPlayerId: b, backfillingRequestId: "lonely" })
      .expect(201);
    // "late" is waiting, so this one is delivered at once; drop it and ask for another seat with nobody left.
    await api.delete(`/games/g/matches/${match.id}/backfill/lonely`).expect(200);
    await api.delete(`/games/g/players/late`).expect(204);
    await api
      .post(`/games/g/matches/${match.id}/backfill`, { droppedPlayerId: b, backfillingRequestId: "never" })
      .expect(201);
    h.clock.advance(61_000);
    await h.stats.loop.runOnce();
    expect((await api.get(`/games/g/matches/${match.id}/backfill/never`)).body.state).toBe("timed-out");
  });

  it("refuses a backfill of an unconfirmed match and names a dropped player not in it", async () => {
    const { api } = await tenantWithGame(1);
    await queue(api, ["n1", "n2"]);
    await h.stats.loop.runOnce();
    const [match] = (await api.post("/games/g/matches")).body;
    expect((await api.post(`/games/g/matches/${match.id}/backfill`, { droppedPlayerId: "n1" })).status).toBe(
      409,
    );
    await api.post(`/games/g/matches/${match.id}/statuses/confirmed`).expect(204);
    const res = await api.post(`/games/g/matches/${match.id}/backfill`, { droppedPlayerId: "ghost" });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { pointer: "/droppedPlayerId", detail: "is not a player of this match" },
    ]);
  });
});
