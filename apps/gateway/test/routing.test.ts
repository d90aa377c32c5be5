import { INTERNAL_API_VERSION, OLDEST_SUPPORTED_INTERNAL_API_VERSION } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type supertest from "supertest";
import { createHarness, type Harness, type Instance, SERVICE_TOKEN } from "./harness.js";
import { CONCRETE_OPERATIONS } from "./hosted-operations.js";
import { echoHandler } from "./stats-stub.js";

let h: Harness;
let serverToken: string;
let adminToken: string;
let globexToken: string;
beforeAll(async () => {
  h = await createHarness();
  const clientId = await h.createTenant("acme");
  const globexClient = await h.createTenant("globex");
  await h.createUser("acme", "server-eu");
  await h.createUser("acme", "ops-admin", "admin");
  await h.createUser("globex", "globex-server");
  serverToken = (await h.login("server-eu", clientId)).IdToken;
  adminToken = (await h.login("ops-admin", clientId)).IdToken;
  globexToken = (await h.login("globex-server", globexClient)).IdToken;
});
afterAll(async () => {
  await h?.close();
});

const call = (method: string, path: string, instance: Instance = h) =>
  (instance.http as unknown as Record<string, (p: string) => supertest.Test>)[method.toLowerCase()]!(path);

describe("forwarding to stats", () => {
  it.each(CONCRETE_OPERATIONS.map(({ op, path }) => ({ name: `${op.method} ${op.path}`, op, path })))(
    "forwards $name with the service token, tenant, role and request id",
    async ({ op: { method, roles }, path }) => {
      h.stats.handler = echoHandler;
      const token = roles.includes("server") ? serverToken : adminToken;
      const before = h.stats.received.length;
      const res = await call(method, `${path}?x=1&y=two`)
        .set("Authorization", token)
        .set("X-Request-Id", "req-123");
      expect(res.status).toBe(200);
      const received = h.stats.received[before]!;
      expect(received.method).toBe(method);
      expect(received.url).toBe(`${path}?x=1&y=two`);
      expect(received.headers.authorization).toBe(`Bearer ${SERVICE_TOKEN}`);
      expect(received.headers["x-arena-tenant"]).toBe("acme");
      expect(received.headers["x-arena-role"]).toBe(roles.includes("server") ? "server" : "admin");
      expect(received.headers["x-request-id"]).toBe("req-123");
      expect(received.headers["x-arena-internal-api"]).toBe(String(INTERNAL_API_VERSION));
      expect(res.headers["x-request-id"]).toBe("req-123");
    },
  );

  it("routes a path as express does: literals in any case and a trailing slash; an empty parameter is none (404), another method is refused (405)", async () => {
    h.stats.handler = echoHandler;
    const before = h.stats.received.length;
    const completion = "/games/game-1/matches/m1/statuses/completed";
    for (const path of [
      completion.toUpperCase().replace("GAME-1", "game-1").replace("M1", "m1"),
      `${completion}/`,
    ]) {
      const res = await h.http.post(path).set("Authorization", serverToken).send({ teams: [] });
      expect(res.status).toBe(200);
      expect(res.body.url).toBe(path);
    }
    expect(h.stats.received.length).toBe(before + 2);
    await h.http
      .post("/games//matches/m1/statuses/completed")
      .set("Authorization", serverToken)
      .send({})
      .expect(404);
    await h.http.patch("/seasons").set("Authorization", adminToken).send({}).expect(405);
    await h.http
      .get("/games/game-1/matches/m1/statuses/completed")
      .set("Authorization", serverToken)
      .expect(405);
    expect(h.stats.received.length).toBe(before + 2);
  });

  it("forwards the body byte for byte and Prefer, and answers stats' status, type and body unchanged", async () => {
    h.stats.handler = (_req, res) => {
      res.writeHead(201, { "content-type": "application/json; charset=utf-8", location: "/x" });
      res.end('{"players":[{"playerId":"p","reference":null,"state":"waiting"}]}');
    };
    const body = '{ "players": [ {"playerId": "p", "reference": "ü"} ] , "extra":  1 }';
    const before = h.stats.received.length;
    const res = await h.http
      .post("/games/game-1/players")
      .set("Authorization", `Bearer ${serverToken}`)
      .set("Content-Type", "application/json")
      .set("Prefer", "return=representation")
      .send(body);
    const received = h.stats.received[before]!;
    expect(received.body.toString("utf8")).toBe(body);
    expect(received.headers.prefer).toBe("return=representation");
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers.location).toBe("/x");
    expect(res.text).toBe('{"players":[{"playerId":"p","reference":null,"state":"waiting"}]}');
  });

  it("answers stats' 204 without a body and stats' problems unchanged", async () => {
    h.stats.handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const noContent = await h.http.delete("/games/game-1/players/player-1").set("Authorization", serverToken);
    expect(noContent.status).toBe(204);
    expect(noContent.text).toBe("");
    h.stats.handler = (_req, res) => {
      res.writeHead(409, { "content-type": "application/problem+json" });
      res.end('{"type":"t","title":"Conflict","status":409,"detail":"d","code":"CONFLICT","requestId":"r"}');
    };
    const conflict = await h.http
      .post("/games/game-1/players")
      .set("Authorization", serverToken)
      .send({ players: [{}] });
    expect(conflict.status).toBe(409);
    expect(conflict.headers["content-type"]).toBe("application/problem+json");
    expect(conflict.body.code).toBe("CONFLICT");
  });
});

describe("the internal API version stats names", () => {
  const answering = (version: string | undefined) => {
    h.stats.handler = (_req, res) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (version !== undefined) headers["x-arena-internal-api"] = version;
      res.writeHead(200, headers);
      res.end("[]");
    };
  };

  it("works with a stats of the release before versions (no header), its own, and a newer one", async () => {
    for (const version of [undefined, String(INTERNAL_API_VERSION), String(INTERNAL_API_VERSION + 1)]) {
      answering(version);
      await call("GET", "/seasons").set("Authorization", serverToken).expect(200);
    }
  });

  it("answers 502 naming the version when stats is older than the oldest version it serves", async () => {
    answering(String(OLDEST_SUPPORTED_INTERNAL_API_VERSION - 1));
    const res = await call("GET", "/seasons").set("Authorization", serverToken).expect(502);
    expect(res.body.code).toBe("UPSTREAM_FAILED");
    expect(res.body.detail).toContain("internal API version");
  });
});

describe("roles and tenants", () => {
  it("answers a server token on an admin-only operation with a 403 problem, without calling stats", async () => {
    for (const [method, path] of [
      ["PUT", "/games/game-1"],
      ["POST", "/seasons"],
      ["POST", "/admin/season/reset"],
    ] as const) {
      const before = h.stats.received.length;
      const res = await call(method, path).set("Authorization", serverToken).send({});
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
      expect(h.stats.received.length).toBe(before);
    }
  });

  it("names the caller's tenant to stats from the token, never from what the caller sends", async () => {
    h.stats.handler = echoHandler;
    const before = h.stats.received.length;
    await h.http
      .get("/games/game-1")
      .set("Authorization", globexToken)
      .set("X-Arena-Tenant", "acme")
      .set("X-Arena-Role", "admin")
      .expect(200);
    const received = h.stats.received[before]!;
    expect(received.headers["x-arena-tenant"]).toBe("globex");
    expect(received.headers["x-arena-role"]).toBe("server");
  });

  it("refuses a disabled user's token at once on the replica that disabled it", async () => {
    await h.createUser("acme", "to-disable");
    const token = (
      await h.login("to-disable", (await h.db.appClient.findFirstOrThrow({ where: { tenantId: "acme" } })).id)
    ).IdToken;
    h.stats.handler = echoHandler;
    await h.http.get("/seasons").set("Authorization", token).expect(200);
    await h.gateway.admin.setDisabled("acme", "to-disable", true);
    const res = await h.http.get("/seasons").set("Authorization", token);
    expect(res.status).toBe(401);
  });
});

describe("answers longer than the gateway gathers (64 KB)", () => {
  // 300 KB in 10 KB chunks: written through as they come, the first ones before the last is sent.
  const big = Buffer.from(JSON.stringify({ players: "x".repeat(300 * 1024) }));
  it.each([
    { name: "with a Content-Length", length: true },
    { name: "chunked", length: false },
  ])("reach the client whole and unchanged ($name)", async ({ length }) => {
    h.stats.handler = (_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "x-arena-internal-api": String(INTERNAL_API_VERSION),
        ...(length ? { "content-length": String(big.length) } : {}),
      });
      for (let at = 0; at < big.length; at += 10 * 1024) res.write(big.subarray(at, at + 10 * 1024));
      res.end();
    };
    const res = await h.http.get("/seasons").set("Authorization", serverToken).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(Buffer.from(res.text).equals(big)).toBe(true);
  });

  it("is cut short, not answered as a success, when stats fails in the middle of one", async () => {
    h.stats.handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(big.length) });
      res.write(big.subarray(0, 100 * 1024), () => res.socket?.destroy());
    };
    await expect(h.http.get("/seasons").set("Authorization", serverToken).buffer(true)).rejects.toThrow();
  });
});

/** A plain forward (streamed), and a leaderboard read (read whole on undici's dispatcher, cached). */
const SEND_PATHS = [
  { name: "GET /seasons", send: (i: Instance) => i.http.get("/seasons") },
  {
    name: "POST /games/g1/leaderboard",
    send: (i: Instance) => i.http.post("/games/g1/leaderboard").send({ count: 5 }),
  },
];

describe.each(SEND_PATHS)("when stats misbehaves ($name)", ({ send }) => {
  it("answers 503 fast when stats is down", async () => {
    const down = await h.startInstance({ STATS_URL: "http://127.0.0.1:1" });
    const res = await send(down).set("Authorization", serverToken);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
    expect(res.headers["retry-after"]).toBe("1");
  });

  it("answers 504 when stats does not answer in time", async () => {
    const slow = await h.startInstance({ UPSTREAM_TIMEOUT_MS: "200" });
    h.stats.handler = () => {};
    const res = await send(slow).set("Authorization", serverToken);
    expect(res.status).toBe(504);
    expect(res.body.code).toBe("UPSTREAM_TIMEOUT");
  });

  it("answers 502 when stats drops the connection without an answer", async () => {
    h.stats.handler = (_req, res) => res.socket?.destroy();
    const res = await send(h).set("Authorization", serverToken);
    expect(res.status).toBe(502);
    expect(res.body.code).toBe("UPSTREAM_FAILED");
  });

  it("answers 502 naming the version when stats is older than the oldest version it serves", async () => {
    h.stats.handler = (_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "x-arena-internal-api": String(OLDEST_SUPPORTED_INTERNAL_API_VERSION - 1),
      });
      res.end("[]");
    };
    const res = await send(h).set("Authorization", serverToken).expect(502);
    expect(res.body.code).toBe("UPSTREAM_FAILED");
    expect(res.body.detail).toContain("internal API version");
  });
});
