import { eventually } from "@arena/service-kit/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import {
  type FanoutBroadcast,
  type FanoutDelivery,
  PushFanout,
  type PushSubscription,
} from "../src/index.js";
import { createTestRedis, type TestRedis } from "../src/testing.js";

const TTL = 30_000;
const sub = (gameIds: string[], priority = 0, rateLimit: number | null = null): PushSubscription => ({
  gameIds,
  priority,
  rateLimit,
});

/** How long the tests wait for what a listener receives (pub/sub is asynchronous). */
const WITHIN = { timeoutMs: 2000 };

describe("PushFanout", () => {
  let redis: TestRedis;
  let clock: number;
  let fanout: PushFanout;
  const stops: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = await createTestRedis("push_fanout_test");
  });
  afterAll(async () => {
    await redis.cleanup();
  });
  beforeEach(async () => {
    await redis.flush();
    clock = 1_700_000_000_000;
    fanout = new PushFanout({
      redis: redis.client(),
      keys: redis.keys,
      clock: { now: () => new Date(clock) },
    });
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  async function listenAs(replicaId: string) {
    const deliveries: FanoutDelivery[] = [];
    const broadcasts: FanoutBroadcast[] = [];
    stops.push(
      await fanout.listen(replicaId, {
        delivery: (d) => deliveries.push(d),
        broadcast: (b) => broadcasts.push(b),
      }),
    );
    return { deliveries, broadcasts };
  }

  it("offers to nobody when no connection subscribed to the game", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["other"]), TTL);
    expect(await fanout.offer("ten_1", "ranked", { action: "matchSuggestion" })).toBeNull();
  });

  it("delivers one offer to the chosen connection's replica with the message unchanged", async () => {
    const r1 = await listenAs("r1");
    const r2 = await listenAs("r2");
    await fanout.register("ten_1", "r2", "r2.7", sub(["ranked"]), TTL);
    const message = {
      action: "matchSuggestion",
      messageId: null,
      payload: { gameId: "ranked", x: 0.1 + 0.2 },
    };
    expect(await fanout.offer("ten_1", "ranked", message)).toBe("r2.7");
    await eventually(() => r2.deliveries.length === 1, WITHIN);
    expect(r2.deliveries[0]).toEqual({
      tenantId: "ten_1",
      connectionId: "r2.7",
      gameId: "ranked",
      message: JSON.stringify(message),
    });
    expect(JSON.parse(r2.deliveries[0]!.message)).toEqual(message);
    expect(r1.deliveries).toEqual([]);
  });

  it("takes turns round-robin among the connections of one game", async () => {
    for (const id of ["r1.1", "r1.2", "r2.1"]) {
      await fanout.register("ten_1", id.split(".")[0]!, id, sub(["ranked"]), TTL);
    }
    const chosen: (string | null)[] = [];
    for (let i = 0; i < 6; i++) chosen.push(await fanout.offer("ten_1", "ranked", { i }));
    expect(new Set(chosen.slice(0, 3))).toEqual(new Set(["r1.1", "r1.2", "r2.1"]));
    expect(chosen.slice(3)).toEqual(chosen.slice(0, 3));
  });

  it("keeps tenants apart: one tenant's subscribers never get another's pushes", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"]), TTL);
    expect(await fanout.offer("ten_2", "ranked", {})).toBeNull();
  });

  it("gives pushes to the highest priority present, and to lower ones once it is rate-limited", async () => {
    await fanout.register("ten_1", "r1", "r1.low", sub(["ranked"], 0), 10 * TTL);
    await fanout.register("ten_1", "r1", "r1.high", sub(["ranked"], 5, 2), 10 * TTL);
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.high");
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.high");
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.low");
    clock += 60_000;
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.high");
  });

  it("caps pushes per minute to a connection and refuses when every one is at its cap", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"], 0, 3), 10 * TTL);
    const chosen = [];
    for (let i = 0; i < 4; i++) chosen.push(await fanout.offer("ten_1", "ranked", {}));
    expect(chosen).toEqual(["r1.1", "r1.1", "r1.1", null]);
    clock += 59_999;
    expect(await fanout.offer("ten_1", "ranked", {})).toBeNull();
    clock += 1;
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.1");
  });

  it("places a batch in one call exactly as the same offers one by one would", async () => {
    const register = async (f: PushFanout) => {
      await f.register("ten_1", "r1", "r1.low", sub(["ranked"], 0), 10 * TTL);
      await f.register("ten_1", "r1", "r1.a", sub(["ranked"], 5, 3), 10 * TTL);
      await f.register("ten_1", "r2", "r2.b", sub(["ranked"], 5, 2), 10 * TTL);
      await f.register("ten_1", "r2", "r2.x", sub(["ranked"], 9), 10 * TTL);
    };
    await register(fanout);
    const { deliveries } = await listenAs("r1");
    const messages = Array.from({ length: 8 }, (_, i) => ({ i }));
    const batch = await fanout.offerMany("ten_1", "ranked", messages, ["r2.x"]);
    // Priority 5 shares round-robin until each is at its cap (3 and 2), then priority 0 takes over.
    expect(batch).toEqual(["r1.a", "r2.b", "r1.a", "r2.b", "r1.a", "r1.low", "r1.low", "r1.low"]);
    await eventually(() => deliveries.length === 6, WITHIN);
    expect(deliveries.map((d) => JSON.parse(d.message).i)).toEqual([0, 2, 4, 5, 6, 7]);

    // The same offers one at a time, on fresh state, choose the same connections.
    await redis.flush();
    await register(fanout);
    const single = [];
    for (const m of messages) single.push(await fanout.offer("ten_1", "ranked", m, ["r2.x"]));
    expect(single).toEqual(batch);
    // And the rate windows a batch counted hold for the next call.
    expect(await fanout.offerMany("ten_1", "ranked", [{}, {}], ["r2.x", "r1.low"])).toEqual([null, null]);
  });

  it("answers whether a game has subscribers without offering anything", async () => {
    expect(await fanout.hasSubscribers("ten_1", "ranked")).toBe(false);
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked-2"]), TTL);
    expect(await fanout.hasSubscribers("ten_1", "ranked")).toBe(false);
    await fanout.register("ten_1", "r1", "r1.2", sub(["ranked"]), TTL);
    expect(await fanout.hasSubscribers("ten_1", "ranked")).toBe(true);
    expect(await fanout.hasSubscribers("ten_2", "ranked")).toBe(false);
    await fanout.unregister("ten_1", "r1.2");
    expect(await fanout.hasSubscribers("ten_1", "ranked")).toBe(false);
    expect(await fanout.offerMany("ten_1", "ranked", [])).toEqual([]);
  });

  it("skips excluded connections", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"]), TTL);
    await fanout.register("ten_1", "r1", "r1.2", sub(["ranked"]), TTL);
    for (let i = 0; i < 3; i++) expect(await fanout.offer("ten_1", "ranked", {}, ["r1.1"])).toBe("r1.2");
    expect(await fanout.offer("ten_1", "ranked", {}, ["r1.1", "r1.2"])).toBeNull();
  });

  it("forgets a registration that was not refreshed within its TTL, and keeps a refreshed one", async () => {
    await fanout.register("ten_1", "r1", "r1.dead", sub(["ranked"]), TTL);
    await fanout.register("ten_1", "r1", "r1.alive", sub(["ranked"]), TTL);
    clock += 20_000;
    await fanout.register("ten_1", "r1", "r1.alive", sub(["ranked"]), TTL);
    clock += 15_000;
    for (let i = 0; i < 3; i++) expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.alive");
    clock += 30_000;
    expect(await fanout.offer("ten_1", "ranked", {})).toBeNull();
  });

  it("heals after a Redis flush once the connection refreshes its registration", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"]), TTL);
    await redis.flush();
    expect(await fanout.offer("ten_1", "ranked", {})).toBeNull();
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"]), TTL);
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.1");
  });

  it("moves a connection to its new games when it registers again with other ones", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["a", "b"]), TTL);
    await fanout.register("ten_1", "r1", "r1.1", sub(["b", "c"]), TTL);
    expect(await fanout.offer("ten_1", "a", {})).toBeNull();
    expect(await fanout.offer("ten_1", "b", {})).toBe("r1.1");
    expect(await fanout.offer("ten_1", "c", {})).toBe("r1.1");
  });

  it("never confuses a game with another whose name starts the same", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked-2v2"]), TTL);
    expect(await fanout.offer("ten_1", "ranked", {})).toBeNull();
    expect(await fanout.offer("ten_1", "ranked-2", {})).toBeNull();
  });

  it("stops offering to an unregistered connection and leaves no keys of it behind", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"], 0, 10), TTL);
    await fanout.offer("ten_1", "ranked", {});
    await fanout.unregister("ten_1", "r1.1");
    expect(await fanout.offer("ten_1", "ranked", {})).toBeNull();
    const client = redis.client();
    const keys = await redis.scanKeys();
    for (const key of keys) {
      const type = await client.type(key);
      if (type === "hash") expect(await client.hkeys(key)).not.toContain("r1.1");
      if (type === "zset") expect((await client.zrange(key, 0, -1)).join(" ")).not.toContain("r1.1");
    }
  });

  it("keeps every key of a tenant under its hash tag", async () => {
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"], 0, 10), TTL);
    await fanout.offer("ten_1", "ranked", {});
    const keys = await redis.scanKeys();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.startsWith(`${redis.prefix}{ten_1}:`)).toBe(true);
  });

  it("broadcasts to every replica's listener", async () => {
    const r1 = await listenAs("r1");
    const r2 = await listenAs("r2");
    const message = { action: "playersRemoved", messageId: null, payload: { gameId: "ranked" } };
    await fanout.broadcast("ten_1", "ranked", message);
    await eventually(() => r1.broadcasts.length === 1 && r2.broadcasts.length === 1, WITHIN);
    expect(r1.broadcasts[0]).toEqual({
      tenantId: "ten_1",
      gameId: "ranked",
      message: JSON.stringify(message),
    });
    expect(r1.deliveries).toEqual([]);
  });

  it("stops listening when the stop function is called", async () => {
    const deliveries: FanoutDelivery[] = [];
    const stop = await fanout.listen("r1", { delivery: (d) => deliveries.push(d), broadcast: () => {} });
    await stop();
    await fanout.register("ten_1", "r1", "r1.1", sub(["ranked"]), TTL);
    expect(await fanout.offer("ten_1", "ranked", {})).toBe("r1.1");
    const r1 = await listenAs("r1-check");
    await fanout.broadcast("ten_1", "ranked", {});
    await eventually(() => r1.broadcasts.length === 1, WITHIN);
    expect(deliveries).toEqual([]);
  });

  it("refuses a subscription without games and ids that would break its keys", async () => {
    await expect(fanout.register("ten_1", "r1", "r1.1", sub([]), TTL)).rejects.toThrow(/at least one game/);
    await expect(fanout.register("ten_1", "r1", "r1.1", sub(["a\nb"]), TTL)).rejects.toThrow(/Unusable/);
  });
});
