import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import type { AccessTokens } from "../src/access-tokens.js";
import type { ReconnectEvent } from "../src/hooks.js";
import { RealtimeClient, type RealtimeClientOptions, RealtimeError } from "../src/realtime/index.js";
import { RealtimePeer, suggestion } from "./realtime-peer.js";

/** Hands out `token` until it is rejected, then "good". */
class TestTokens implements AccessTokens {
  readonly rejections: string[] = [];
  issued = 0;
  constructor(public token = "good") {}
  async current(): Promise<string> {
    this.issued += 1;
    return this.token;
  }
  rejected(token: string): void {
    this.rejections.push(token);
    this.token = "good";
  }
}

let peer: RealtimePeer;
let client: RealtimeClient | undefined;
const reconnects: ReconnectEvent[] = [];

beforeEach(async () => {
  peer = await RealtimePeer.start();
  reconnects.length = 0;
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await peer.close();
});

function start(
  options: Partial<RealtimeClientOptions> = {},
  tokens: AccessTokens = new TestTokens(),
): RealtimeClient {
  client = new RealtimeClient({
    url: peer.url,
    tokens,
    reconnectBaseMs: 20,
    reconnectMaxMs: 100,
    hooks: { metrics: { reconnect: (e) => reconnects.push(e) } },
    ...options,
  });
  return client;
}

describe("RealtimeClient against a real ws peer", () => {
  it("subscribes, hands each suggestion to the listeners and acknowledges it", async () => {
    const rt = start();
    const got: string[] = [];
    rt.on("matchSuggestion", (s) => got.push(s.match.id));
    await rt.subscribe({ gameIds: ["duel"], priority: 5, rateLimit: 100 });
    expect(peer.connections[0]?.subscription).toEqual({ gameIds: ["duel"], priority: 5, rateLimit: 100 });
    peer.offer(suggestion("m1"));
    peer.offer(suggestion("m2"));
    await peer.until(() => peer.acks.length === 2);
    expect(got).toEqual(["m1", "m2"]);
    expect(peer.acks).toEqual(["m1", "m2"]);
  });

  it("hands suggestions out through the iterator and acknowledges each only once it is taken", async () => {
    const rt = start();
    const iterator = rt.suggestions();
    await rt.subscribe({ gameIds: ["duel"] });
    peer.offer(suggestion("m1"));
    peer.offer(suggestion("m2"));
    await new Promise((r) => setTimeout(r, 100));
    expect(peer.acks).toEqual([]);
    expect((await iterator.next()).value?.match.id).toBe("m1");
    await peer.until(() => peer.acks.length === 1);
    expect((await iterator.next()).value?.match.id).toBe("m2");
    await peer.until(() => peer.acks.length === 2);
  });

  it("leaves acknowledging to the caller with autoAck false", async () => {
    const rt = start({ autoAck: false });
    const got: Array<Parameters<Parameters<typeof rt.on<"matchSuggestion">>[1]>[0]> = [];
    rt.on("matchSuggestion", (s) => got.push(s));
    await rt.subscribe({ gameIds: ["duel"] });
    peer.offer(suggestion("m1"));
    await peer.until(() => got.length === 1);
    expect(peer.acks).toEqual([]);
    await rt.ack(got[0] as (typeof got)[0]);
    expect(peer.acks).toEqual(["m1"]);
  });

  it("reconnects after the peer drops it, resubscribes, and delivers a re-offered suggestion once", async () => {
    // The peer never answers acks on the first connection: they are in flight when it dies.
    const rt = start();
    const got: string[] = [];
    const connected: string[] = [];
    rt.on("matchSuggestion", (s) => got.push(s.match.id));
    rt.on("connected", (e) => connected.push(e.kind));
    await rt.subscribe({ gameIds: ["duel", "ranked"], priority: 2 });
    const first = peer.connections[0];
    if (!first) throw new Error("no connection");
    first.socket.pause(); // reads nothing more: the ack of m1 is never seen
    peer.pushTo(first, suggestion("m1"));
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual(["m1"]);
    first.socket.terminate();
    await peer.until(() => peer.connections.length === 2 && peer.connections[1]?.subscription !== undefined);
    expect(peer.connections[1]?.subscription).toEqual({ gameIds: ["duel", "ranked"], priority: 2 });
    // The peer re-offered m1 to the new connection (stats' rule); then a new one comes.
    peer.offer(suggestion("m2"));
    await peer.until(() => peer.acks.includes("m1") && peer.acks.includes("m2"));
    expect(got).toEqual(["m1", "m2"]);
    expect(connected).toEqual(["connect", "reconnect"]);
    expect(reconnects[0]?.reason).toBe("closed");
  });

  it("asks for a fresh token before reconnecting and reports a refused one", async () => {
    const tokens = new TestTokens("stale");
    const rt = start({}, tokens);
    await rt.subscribe({ gameIds: ["duel"] });
    expect(tokens.rejections).toEqual(["stale"]);
    expect(reconnects.map((e) => e.reason)).toEqual(["token"]);
    expect(peer.connections.map((c) => c.token)).toEqual(["good"]);
    peer.connections[0]?.socket.terminate();
    await peer.until(() => peer.connections.length === 2);
    expect(tokens.issued).toBe(3);
  });

  it("replaces a connection that went silent past the keepAlive timeout", async () => {
    const rt = start({ keepAliveTimeoutMs: 200 });
    await rt.subscribe({ gameIds: ["duel"] });
    const first = peer.connections[0];
    if (!first) throw new Error("no connection");
    // keepAlives keep it alive ...
    for (let i = 0; i < 6; i++) {
      peer.send(first, { action: "keepAlive", messageId: `keepAlive-${i}`, payload: {} });
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(peer.connections).toHaveLength(1);
    // ... silence does not.
    await peer.until(() => peer.connections.length === 2 && peer.connections[1]?.subscription !== undefined);
    expect(reconnects[0]?.reason).toBe("keepAliveMissed");
  });

  it("hands over before the lifetime ends: the next connection is subscribed before the old one closes", async () => {
    const rt = start({ maxLifetimeMs: 600, handoverLeadMs: 400 });
    const got: string[] = [];
    const disconnected: number[] = [];
    rt.on("matchSuggestion", (s) => got.push(s.match.id));
    rt.on("disconnected", (e) => disconnected.push(e.connection));
    await rt.subscribe({ gameIds: ["duel"] });
    await peer.until(() => peer.connections[1]?.subscription !== undefined);
    const [old, fresh] = peer.connections;
    if (!old || !fresh) throw new Error("no connections");
    // In the overlap, both connections get the same push (a broadcast, or an offer racing the switch).
    if (old.open) peer.pushTo(old, suggestion("overlap"));
    peer.pushTo(fresh, suggestion("overlap"));
    peer.pushTo(fresh, suggestion("after"));
    await peer.until(() => !old.open && got.includes("after"));
    expect(got).toEqual(["overlap", "after"]);
    expect(disconnected).toEqual([]);
    expect(reconnects.map((e) => e.reason)).toEqual(["lifetime"]);
  });

  it("drops a broadcast both connections of a handover receive, and keeps other listeners going when one throws", async () => {
    const rt = start({ maxLifetimeMs: 600, handoverLeadMs: 400 });
    const removed: string[][] = [];
    rt.on("playersRemoved", () => {
      throw new Error("a listener's bug");
    });
    rt.on("playersRemoved", (r) => removed.push(r.players.map((p) => p.playerId)));
    await rt.subscribe({ gameIds: ["duel"] });
    await peer.until(() => peer.connections[1]?.subscription !== undefined);
    const broadcast = {
      action: "playersRemoved",
      messageId: null,
      payload: { gameId: "duel", reason: "expired", players: [{ playerId: "late", reference: null }] },
    };
    for (const conn of peer.open) peer.send(conn, broadcast);
    await new Promise((r) => setTimeout(r, 100));
    expect(removed).toEqual([["late"]]);
  });

  it("fails the first subscribe when the credentials are refused, instead of retrying forever", async () => {
    const refusal = Object.assign(new Error("login failed: NotAuthorizedException"), {
      name: "LoginError",
      status: 400,
    });
    const rt = start({}, { current: () => Promise.reject(refusal), rejected: () => {} });
    await expect(rt.subscribe({ gameIds: ["duel"] })).rejects.toBe(refusal);
    expect(peer.connections).toHaveLength(0);
  });

  it("drops a re-offer of a suggestion still waiting in the buffer, and acknowledges it once taken", async () => {
    const rt = start();
    const iterator = rt.suggestions();
    await rt.subscribe({ gameIds: ["duel"] });
    const conn = peer.connections[0];
    if (!conn) throw new Error("no connection");
    peer.pushTo(conn, suggestion("m1"));
    peer.pushTo(conn, suggestion("m1"));
    await new Promise((r) => setTimeout(r, 100));
    expect(peer.acks).toEqual([]);
    expect((await iterator.next()).value?.match.id).toBe("m1");
    peer.pushTo(conn, suggestion("m2"));
    expect((await iterator.next()).value?.match.id).toBe("m2");
    await peer.until(() => peer.acks.length === 2);
    expect(peer.acks).toEqual(["m1", "m2"]);
  });

  it("never drops on overflow: what did not fit is offered again once the iterator catches up", async () => {
    const rt = start({ maxBufferedSuggestions: 2 });
    const iterator = rt.suggestions();
    await rt.subscribe({ gameIds: ["duel"] });
    for (const id of ["m1", "m2", "m3", "m4"]) peer.offer(suggestion(id));
    await new Promise((r) => setTimeout(r, 100));
    const got: string[] = [];
    for (let i = 0; i < 4; i++) got.push((await iterator.next()).value?.match.id as string);
    expect(got.sort()).toEqual(["m1", "m2", "m3", "m4"]);
    await peer.until(() => peer.acks.length === 4);
    expect(peer.connections.length).toBe(2);
  });

  it("answers requests by messageId, with the gateway's error or a timeout", async () => {
    const rt = start({ requestTimeoutMs: 200 });
    peer.answers.getPlayers = { gameId: "duel", players: [] };
    peer.answers.removePlayer = { error: { code: 404, message: "No such player" } };
    peer.answers.getMatches = null;
    expect(await rt.request("getPlayers", { gameId: "duel" })).toEqual({ gameId: "duel", players: [] });
    await expect(rt.request("removePlayer", { gameId: "duel", playerId: "x" })).rejects.toMatchObject({
      code: 404,
      message: "No such player",
    });
    const late = rt.request("getMatches", { gameId: "duel" });
    await expect(late).rejects.toBeInstanceOf(RealtimeError);
    await expect(late).rejects.toMatchObject({ code: "timeout" });
  });

  it("closes cleanly: the iterator ends and nothing reconnects", async () => {
    const rt = start();
    const iterator = rt.suggestions();
    await rt.subscribe({ gameIds: ["duel"] });
    const pending = iterator.next();
    await rt.close();
    expect(await pending).toEqual({ value: undefined, done: true });
    await peer.until(() => peer.open.length === 0);
    await new Promise((r) => setTimeout(r, 100));
    expect(peer.connections).toHaveLength(1);
    await expect(rt.request("getPlayers", {})).rejects.toMatchObject({ code: "closed" });
  });
});
