import { validateServerErrorMessage } from "@arena/contracts";
import type { RunningServer } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";
import { serveInstance, WsClient } from "./ws-client.js";

/**
 * Ids in WebSocket payloads follow the same contracts as REST: text PostgreSQL cannot store as
 * sent is refused by the gateway with a 400 naming the field, and never reaches stats (where it
 * once became a 500 from the database).
 */

let h: Harness;
let server: RunningServer;
let client: WsClient;

beforeAll(async () => {
  h = await createHarness();
  const clientId = await h.createTenant("acme");
  await h.createUser("acme", "server-eu");
  const token = (await h.login("server-eu", clientId)).IdToken;
  server = await serveInstance(h);
  client = await WsClient.open(`http://127.0.0.1:${server.port}`, token);
  // What stats answered for a NUL id before the contracts refused it.
  h.stats.handler = (_req, res) => {
    res.writeHead(500, { "content-type": "application/problem+json" });
    res.end(JSON.stringify({ status: 500, title: "Internal error", code: "INTERNAL" }));
  };
});

afterAll(async () => {
  client?.socket.terminate();
  await server?.stop().catch(() => {});
  await h?.close();
});

describe("ids in WebSocket payloads", () => {
  it.each([
    ["a NUL player id", { gameId: "g1", players: [{ playerId: "p\u0000" }] }, "/payload/players/0/playerId"],
    [
      "a lone surrogate player id",
      { gameId: "g1", players: [{ playerId: "\ud800" }] },
      "/payload/players/0/playerId",
    ],
    ["a NUL party name", { gameId: "g1", partyName: "\u0000", players: [{}] }, "/payload/partyName"],
    [
      "a NUL reference",
      { gameId: "g1", players: [{ reference: "r\u0000" }] },
      "/payload/players/0/reference",
    ],
  ])(
    "answers addPlayer with %s as a 400 naming the field, without calling stats",
    async (_, payload, pointer) => {
      const before = h.stats.received.length;
      const answer = await client.request("addPlayer", payload);
      expect(validateServerErrorMessage(answer)).toBe(true);
      expect(answer.action).toBe("addPlayerResponse");
      expect(answer.error.code).toBe(400);
      expect(answer.error.errors).toEqual([
        { pointer, detail: "must be text without NUL characters or unpaired UTF-16 surrogates" },
      ]);
      expect(h.stats.received.length).toBe(before);
    },
  );

  it("answers the other actions' NUL ids the same way", async () => {
    const matchId = "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11";
    for (const [action, payload, pointer] of [
      ["removePlayer", { gameId: "g1", playerId: "\u0000" }, "/payload/playerId"],
      ["updateMatchFailed", { gameId: "g1", matchId, requeue: ["\u0000"] }, "/payload/requeue/0"],
      [
        "cancelBackfillingRequest",
        { gameId: "g1", matchId, backfillingRequestId: "b\u0000" },
        "/payload/backfillingRequestId",
      ],
      ["getPlayerStats", { playerId: "\u0000" }, "/payload/playerId"],
    ] as const) {
      const answer = await client.request(action, payload);
      expect(answer.error).toMatchObject({ code: 400, errors: [{ pointer }] });
    }
  });
});
