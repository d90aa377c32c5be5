import { INTERNAL_API_VERSION, OLDEST_SUPPORTED_INTERNAL_API_VERSION } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type supertest from "supertest";
import { createHarness, gameConfig, type Harness, playMatch, SERVICE_TOKEN } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.as("acme").put("/games/duel", gameConfig()).expect(200);
  await playMatch(h, "acme", "duel", [["alice"], ["bob"]]);
});
afterAll(async () => {
  await h?.close();
});

const routes: Array<[string, string, object?]> = [
  ["put", "/games/duel", gameConfig()],
  ["get", "/games/duel"],
  ["get", "/seasons"],
  ["post", "/seasons", {}],
  ["post", "/admin/season/reset", { seasonName: "S2" }],
  ["delete", "/seasons/S2"],
  ["get", "/players/alice"],
  ["get", "/players/alice/history"],
  ["post", "/internal/actions/getPlayerStats", { playerId: "alice" }],
  ["post", "/games/duel/leaderboard", { count: 10 }],
  ["post", "/games/duel/matches/00000000-0000-4000-8000-000000000000/statuses/completed", { teams: [] }],
  ["get", "/no/such/route"],
];

type Headers = Record<string, string>;
const good: Headers = {
  authorization: `Bearer ${SERVICE_TOKEN}`,
  "x-arena-tenant": "acme",
  "x-arena-role": "admin",
};
const credentials: Array<[string, Headers]> = [
  ["no credentials", {}],
  ["a wrong token", { ...good, authorization: "Bearer wrong-token-but-long-enough" }],
  ["the token as a prefix of a longer one", { ...good, authorization: `Bearer ${SERVICE_TOKEN}x` }],
  ["the token without the Bearer scheme", { ...good, authorization: SERVICE_TOKEN }],
  ["no tenant header", { authorization: good.authorization!, "x-arena-role": "admin" }],
  ["a malformed tenant header", { ...good, "x-arena-tenant": "{bad}" }],
  ["no role header", { authorization: good.authorization!, "x-arena-tenant": "acme" }],
  ["an unknown role", { ...good, "x-arena-role": "root" }],
];

function send(method: string, path: string, headers: Headers, body?: object) {
  let req = (h.http as unknown as Record<string, (p: string) => supertest.Test>)[method]!(path);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return body === undefined ? req : req.send(body);
}

describe("the service token", () => {
  for (const [method, path, body] of routes) {
    for (const [what, headers] of credentials) {
      it(`answers ${method.toUpperCase()} ${path} with ${what} with a 401 problem`, async () => {
        const res = await send(method, path, headers, body);
        expect(res.status).toBe(401);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(res.body.code).toBe("UNAUTHENTICATED");
      });
    }
  }

  it("leaves /livez, /readyz and /metrics open", async () => {
    await h.http.get("/livez").expect(200);
    await h.http.get("/readyz").expect(200);
    const metrics = await h.http.get("/metrics").expect(200);
    expect(metrics.text).toContain("stats_match_completions_total");
    expect(metrics.text).toContain("stats_leaderboard_outbox_depth");
  });
});

describe("roles", () => {
  it("refuses admin operations to a game server with 403", async () => {
    const server = h.as("acme", "server");
    for (const res of [
      await server.put("/games/duel", gameConfig()),
      await server.post("/seasons", {}),
      await server.post("/admin/season/reset", { seasonName: "S2" }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
    expect((await h.as("acme").get("/seasons").expect(200)).body.currentSeason).toBe("S1");
  });
});

describe("tenant isolation", () => {
  it("never shows one tenant's games, players, history or boards to another", async () => {
    const other = h.as("globex", "admin");
    await other.get("/games/duel").expect(404);
    await other.get("/players/alice").expect(404);
    await other.get("/players/alice/history").expect(404);
    await other.post("/internal/actions/getPlayerStats", { playerId: "alice" }).expect(404);
    await other.post("/games/duel/leaderboard", { count: 10 }).expect(404);
    // The same game id configured by the other tenant is a separate, empty game.
    await other.put("/games/duel", gameConfig()).expect(200);
    expect((await other.post("/games/duel/leaderboard", { count: 10 }).expect(200)).body.leaderboard).toEqual(
      [],
    );
    await other.post("/games/duel/leaderboard", { count: 1, playerId: "alice" }).expect(404);
    expect(
      (await h.as("acme").post("/games/duel/leaderboard", { count: 10 }).expect(200)).body.leaderboard,
    ).toHaveLength(2);
  });
});

describe("the internal API version", () => {
  it("answers its own version and serves a gateway that sends none (the release before versions)", async () => {
    const res = await send("get", "/games/duel", good);
    expect(res.status).toBe(200);
    expect(res.headers["x-arena-internal-api"]).toBe(String(INTERNAL_API_VERSION));
  });

  it("serves a gateway of its own version and of a newer one (releases only add)", async () => {
    for (const version of [INTERNAL_API_VERSION, INTERNAL_API_VERSION + 1]) {
      const res = await send("get", "/games/duel", { ...good, "x-arena-internal-api": String(version) });
      expect(res.status).toBe(200);
    }
  });

  it("refuses a gateway older than the oldest version it serves, and a malformed version, with a 400 naming them", async () => {
    for (const version of [String(OLDEST_SUPPORTED_INTERNAL_API_VERSION - 1), "2.0", "x"]) {
      const res = await send("get", "/games/duel", { ...good, "x-arena-internal-api": version });
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe("INTERNAL_API_VERSION_UNSUPPORTED");
      expect(res.body.detail).toContain(JSON.stringify(version));
    }
  });
});
