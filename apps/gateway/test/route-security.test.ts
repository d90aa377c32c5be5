import type { RunningServer } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type supertest from "supertest";
import { createHarness, type Harness } from "./harness.js";
import { CONCRETE_OPERATIONS } from "./hosted-operations.js";
import { FORGED_KINDS, makeTokenCases, type TokenCases } from "./token-cases.js";
import { serveInstance, WsClient } from "./ws-client.js";

let h: Harness;
let tokens: TokenCases;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  h = await createHarness();
  tokens = await makeTokenCases(h);
  server = await serveInstance(h);
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.stop();
  await h?.close();
});

describe("REST", () => {
  describe.each(CONCRETE_OPERATIONS.map(({ op, path }) => [`${op.method} ${op.path}`, op.method, path]))(
    "%s",
    (_name, method, path) => {
      it.each(FORGED_KINDS)("answers %s with a 401 problem and never reaches stats", async (kind) => {
        const before = h.stats.received.length;
        let req = (h.http as unknown as Record<string, (p: string) => supertest.Test>)[method.toLowerCase()]!(
          path,
        );
        const authorization = tokens.forged.get(kind);
        if (authorization !== undefined) req = req.set("Authorization", authorization);
        const res = await req;
        expect(res.status).toBe(401);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(res.body.code).toBe("UNAUTHENTICATED");
        expect(h.stats.received.length).toBe(before);
      });
    },
  );
});

describe("the WebSocket upgrade (GET /ws)", () => {
  const vias = ["query", "header"] as const;
  it.each(FORGED_KINDS.flatMap((kind) => vias.map((via) => [kind, via] as const)))(
    "answers %s (in the %s) with a 401 problem and opens no socket",
    async (kind, via) => {
      const refused = await WsClient.refusal(base, tokens.forged.get(kind), { via });
      expect(refused.status).toBe(401);
      expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(refused.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(refused.body).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
      expect(h.gateway.websocket.size).toBe(0);
    },
  );

  it.each(vias)("opens with a valid token in the %s", async (via) => {
    const client = await WsClient.open(base, tokens.valid, via);
    expect((await client.request("subscribe", { gameId: "g1" })).action).toBe("subscribeResponse");
    await client.close();
  });
});
