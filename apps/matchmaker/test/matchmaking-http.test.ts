import { createLogger } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createApp } from "../src/app.js";
import { fakeLicense } from "./fake-license.js";

const NOW = 1_700_000_000;
const logger = createLogger({ name: "matchmaker-test", level: "silent" });

function app(license = fakeLicense(), limits: { MAX_TICKETS?: number; MAX_BODY_BYTES?: number } = {}) {
  return createApp({
    config: {
      MAX_BODY_BYTES: 1024 * 1024,
      MAX_TICKETS: 1000,
      MAX_MATCH_PLAYERS: 1000,
      CLOCK_SKEW_SECONDS: 60,
      ...limits,
    },
    license,
    logger,
    clock: { now: () => new Date(NOW * 1000) },
  }).app;
}

function ticket(id: string, rating: number, extra: Record<string, unknown> = {}) {
  return { ticketId: id, joinTimestamp: NOW - 30, rating, servers: ["eu-1", "eu-2"], ...extra };
}

const twoVsTwo = { numTeams: 2, numPlayersPerTeam: 2 };

describe("POST /matchmaking/basic", () => {
  it("returns 13 tickets as 3 matches and 1 unmatched for 2x2", async () => {
    const tickets = Array.from({ length: 13 }, (_, i) => ticket(`t${i}`, 1500 + i));
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets, now: NOW });
    expect(res.status).toBe(200);
    expect(res.body.matchSuggestions).toHaveLength(3);
    expect(res.body.unmatchedTickets).toHaveLength(1);
    const seen = [
      ...res.body.matchSuggestions.flatMap((m: { teams: { tickets: { ticketId: string }[] }[] }) =>
        m.teams.flatMap((t) => t.tickets.map((x) => x.ticketId)),
      ),
      ...res.body.unmatchedTickets.map((x: { ticketId: string }) => x.ticketId),
    ].sort();
    expect(seen).toEqual(tickets.map((t) => t.ticketId).sort());
    for (const match of res.body.matchSuggestions) {
      expect(match.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(["eu-1", "eu-2"]).toContain(match.server);
      expect(match.matchScore).toBeGreaterThanOrEqual(0);
      expect(match.matchScore).toBeLessThanOrEqual(1);
      expect(match.teams).toHaveLength(2);
      for (const team of match.teams) expect(team.tickets).toHaveLength(2);
    }
  });

  it("writes every rating as a float and adds empty exactEqualityConstraints", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets: [ticket("a", 1500), ticket("b", 1500)], now: NOW });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"rating":1500.0');
    expect(res.text).not.toMatch(/"rating":1500[,}]/);
    expect(res.body.unmatchedTickets).toEqual([
      { ...ticket("a", 1500), exactEqualityConstraints: {} },
      { ...ticket("b", 1500), exactEqualityConstraints: {} },
    ]);
  });

  it("keeps a fractional rating as it is", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({
        game_mode: { numTeams: 2, numPlayersPerTeam: 1 },
        tickets: [ticket("a", 12.5), ticket("b", 12.5)],
        now: NOW,
      });
    expect(res.text).toContain('"rating":12.5');
    expect(res.body.matchSuggestions).toHaveLength(1);
  });

  it("names every bad field in one 400 problem", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({
        game_mode: twoVsTwo,
        now: NOW,
        tickets: [
          ticket("dup", 1500),
          ticket("dup", 1500),
          ticket("future", 1500, { joinTimestamp: NOW + 3600 }),
          ticket("latency", 1500, { servers: { "eu-1": 20 } }),
        ],
      });
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
    const byPointer = Object.fromEntries(
      res.body.errors.map((e: { pointer: string; detail: string }) => [e.pointer, e.detail]),
    );
    expect(byPointer["/tickets/1/ticketId"]).toMatch(/duplicates/);
    expect(byPointer["/tickets/2/joinTimestamp"]).toMatch(/future/);
    expect(byPointer["/tickets/3/servers"]).toMatch(/advanced edition/);
  });

  it("rejects schema violations with the JSON pointer of the field", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({
        game_mode: { numTeams: 0, numPlayersPerTeam: 2 },
        tickets: [{ ticketId: "a", rating: "high", servers: [] }],
      });
    expect(res.status).toBe(400);
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        "/game_mode/numTeams",
        "/tickets/0/joinTimestamp",
        "/tickets/0/rating",
        "/tickets/0/servers",
      ]),
    );
  });

  it("rejects a mode whose match can never fill", async () => {
    const single = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: { numTeams: 1, numPlayersPerTeam: 1 }, tickets: [ticket("a", 1)] });
    expect(single.status).toBe(400);
    expect(single.body.errors[0].pointer).toBe("/game_mode/numPlayersPerTeam");
  });

  it("returns a party larger than a team unmatched and matches the rest of the queue", async () => {
    const party = ["a", "b", "c"].map((id) => ticket(id, 1500, { partyId: "p1" }));
    const others = ["d", "e", "f", "g"].map((id) => ticket(id, 1500));
    const res = await request(app())
      .post("/matchmaking/basic?explain=true")
      .send({ game_mode: twoVsTwo, tickets: [...party, ...others], now: NOW });
    expect(res.status).toBe(200);
    expect(res.body.matchSuggestions).toHaveLength(1);
    expect(res.body.unmatchedTickets.map((t: { ticketId: string }) => t.ticketId)).toEqual(["a", "b", "c"]);
    expect(res.body.unmatchedReasons.a).toEqual({
      code: "party-too-large",
      detail: 'party "p1" has 3 tickets but a team holds 2',
    });
  });

  it("answers more tickets than the limit with 413", async () => {
    const tickets = Array.from({ length: 11 }, (_, i) => ticket(`t${i}`, 1500));
    const res = await request(app(fakeLicense(), { MAX_TICKETS: 10 }))
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: "TOO_MANY_TICKETS", limit: 10 });
  });

  it("answers a body over the byte limit with 413", async () => {
    const tickets = Array.from({ length: 200 }, (_, i) => ticket(`t${i}`, 1500));
    const res = await request(app(fakeLicense(), { MAX_BODY_BYTES: 2048 }))
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers malformed JSON with 400 and GET with 405", async () => {
    const bad = await request(app())
      .post("/matchmaking/basic")
      .set("content-type", "application/json")
      .send("{");
    expect(bad.status).toBe(400);
    const get = await request(app()).get("/matchmaking/basic");
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
  });

  it("gives the same matches for the same request", async () => {
    const tickets = Array.from({ length: 40 }, (_, i) => ticket(`t${i}`, 1000 + ((i * 37) % 400)));
    const body = { game_mode: twoVsTwo, tickets, now: NOW };
    const strip = (r: {
      body: { matchSuggestions: { server: string; teams: { tickets: { ticketId: string }[] }[] }[] };
    }) =>
      r.body.matchSuggestions.map((m) => ({
        server: m.server,
        teams: m.teams.map((t) => t.tickets.map((x) => x.ticketId)),
      }));
    const first = await request(app()).post("/matchmaking/basic").send(body);
    const second = await request(app()).post("/matchmaking/basic").send(body);
    expect(strip(first)).toEqual(strip(second));
    expect(first.body.matchSuggestions[0].id).not.toBe(second.body.matchSuggestions[0].id);
  });
});

describe("POST /matchmaking/advanced", () => {
  it("picks the server with the lowest worst latency within maxLatency", async () => {
    const tickets = [
      ticket("a", 1500, { servers: { "eu-1": 30, "eu-2": 40, "us-1": 10 } }),
      ticket("b", 1500, { servers: { "eu-1": 35, "eu-2": 20, "us-1": 150 } }),
    ];
    const res = await request(app())
      .post("/matchmaking/advanced")
      .send({ game_mode: { numTeams: 2, numPlayersPerTeam: 1, maxLatency: 100 }, tickets, now: NOW });
    expect(res.status).toBe(200);
    expect(res.body.matchSuggestions).toHaveLength(1);
    expect(res.body.matchSuggestions[0].server).toBe("eu-1");
    expect(res.body.matchSuggestions[0].teams[0].tickets[0].servers).toEqual(tickets[0]!.servers);
  });

  it("answers a community license with 403 naming the edition", async () => {
    const res = await request(app(fakeLicense({ edition: "community" })))
      .post("/matchmaking/advanced")
      .send({ game_mode: twoVsTwo, tickets: [] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("EDITION_REQUIRED");
  });

  it("refuses maxLatency on the basic edition", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: { ...twoVsTwo, maxLatency: 50 }, tickets: [] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].pointer).toBe("/game_mode/maxLatency");
  });
});

describe("license states", () => {
  it("answers 403 for a revoked key and 503 once the lease has expired", async () => {
    const license = fakeLicense();
    const server = app(license);
    license.set({ status: "invalid", edition: null, reason: "License key was revoked" });
    const revoked = await request(server)
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets: [] });
    expect(revoked.status).toBe(403);
    expect(revoked.body.code).toBe("LICENSE_INVALID");
    license.set({ status: "expired", edition: null, reason: "License service unreachable since ..." });
    const expired = await request(server)
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets: [] });
    expect(expired.status).toBe(503);
    expect(expired.body.code).toBe("LICENSE_UNAVAILABLE");
  });
});

describe("returned tickets", () => {
  it("refuses a server list that names a server twice", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets: [ticket("a", 1, { servers: ["eu-1", "eu-2", "eu-1"] })] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { pointer: "/tickets/0/servers/2", detail: "repeats a server named earlier in the list" },
    ]);
  });

  it("returns every field a ticket came with, unknown ones included", async () => {
    const odd = ticket("odd", 1500, {
      partyId: "p",
      exactEqualityConstraints: { map: "dust", ranked: true },
      sdk: { version: "1.2", 'quote"key': "ünïcode ✓" },
      note: null,
    });
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets: [odd], now: NOW });
    expect(res.status).toBe(200);
    expect(res.body.unmatchedTickets).toEqual([odd]);
    expect(res.text).toContain('"rating":1500.0');
  });

  it("writes a null exactEqualityConstraints as {}", async () => {
    const res = await request(app())
      .post("/matchmaking/basic")
      .send({ game_mode: twoVsTwo, tickets: [ticket("n", 7, { exactEqualityConstraints: null })], now: NOW });
    expect(res.body.unmatchedTickets[0].exactEqualityConstraints).toEqual({});
  });
});
