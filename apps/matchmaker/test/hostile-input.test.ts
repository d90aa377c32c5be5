import { isUtf8 } from "node:buffer";
import { validateMatchmakingResponse } from "@arena/contracts";
import { createLogger } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import request from "supertest";
import { createApp } from "../src/app.js";
import { findMatches } from "../src/matching/index.js";
import { fakeLicense } from "./fake-license.js";

const NOW = 1_700_000_000;
const logger = createLogger({ name: "matchmaker-test", level: "silent" });

function newApp() {
  return createApp({
    config: {
      MAX_BODY_BYTES: 4 * 1024 * 1024,
      MAX_TICKETS: 50_000,
      MAX_MATCH_PLAYERS: 1000,
      CLOCK_SKEW_SECONDS: 60,
    },
    license: fakeLicense(),
    logger,
    clock: { now: () => new Date(NOW * 1000) },
  }).app;
}

/** A queue with matches, unmatched tickets, parties and constraints: the request every check repeats. */
const REFERENCE = {
  game_mode: { numTeams: 2, numPlayersPerTeam: 2, targetWaitingTime: 20 },
  now: NOW,
  tickets: Array.from({ length: 41 }, (_, i) => ({
    ticketId: `ref-${i}`,
    joinTimestamp: NOW - (i % 30),
    rating: 1200 + ((i * 37) % 600),
    servers: i % 3 === 0 ? ["eu-1", "us-1"] : ["us-1", "eu-1"],
    ...(i % 7 === 0 ? { partyId: `p${i % 2}` } : {}),
    ...(i % 5 === 0 ? { exactEqualityConstraints: { map: "dust" } } : {}),
  })),
};

/** The answer without its random ids, for comparing two answers to the same request. */
function withoutIds(body: { matchSuggestions: Array<{ id?: string; teams: Array<{ id?: string }> }> }) {
  return {
    ...body,
    matchSuggestions: body.matchSuggestions.map(({ id: _, teams, ...rest }) => ({
      ...rest,
      teams: teams.map(({ id: __, ...team }) => team),
    })),
  };
}

const referenceAnswer = async (app: ReturnType<typeof newApp>) => {
  const res = await request(app).post("/matchmaking/basic").send(REFERENCE);
  expect(res.status).toBe(200);
  return withoutIds(res.body);
};

const FRESH = referenceAnswer(newApp());

const post = (app: ReturnType<typeof newApp>, body: string | object, path = "/matchmaking/basic") =>
  request(app)
    .post(path)
    .set("content-type", "application/json")
    .send(typeof body === "string" ? body : JSON.stringify(body));

describe("a hostile request leaves the process answering as a fresh one", () => {
  it.each([
    ["a team size in the billions", { numTeams: 2, numPlayersPerTeam: 2_000_000_000 }],
    ["a match beyond any possible queue", { numTeams: 1_000_000, numPlayersPerTeam: 1_000_000 }],
    ["a match above MAX_MATCH_PLAYERS", { numTeams: 2, numPlayersPerTeam: 50_000 }],
    ["a float-sized integer", { numTeams: 2, numPlayersPerTeam: 1e300 }],
  ])("refuses %s with a 400 naming /game_mode", async (_, gameMode) => {
    const app = newApp();
    const res = await post(app, { game_mode: gameMode, tickets: REFERENCE.tickets, now: NOW });
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
    expect(res.body.errors).toEqual([{ pointer: "/game_mode", detail: expect.stringMatching(/players/) }]);
    expect(await referenceAnswer(app)).toEqual(await FRESH);
  });

  it("keeps the search's scratch memory consistent when a huge match fails to allocate", () => {
    // Past the HTTP checks, as a library caller could: the single-ticket search sizes scratch arrays by it.
    const few = REFERENCE.tickets.filter((t) => t.partyId === undefined);
    expect(() => findMatches({ numTeams: 2, numPlayersPerTeam: 2 ** 30 }, few, { now: NOW })).toThrow(
      RangeError,
    );
    // A larger match than any before it must get scratch of its own size, not the size recorded for
    // the allocation that failed.
    const tickets = Array.from({ length: 400 }, (_, i) => ({
      ticketId: `same-${i}`,
      joinTimestamp: NOW,
      rating: 1500,
      servers: ["eu-1"],
    }));
    const result = findMatches({ numTeams: 2, numPlayersPerTeam: 40 }, tickets, {
      now: NOW,
    });
    expect(result.matchSuggestions).toHaveLength(5);
    const placed = result.matchSuggestions.flatMap((m) => {
      expect(m.server).toBe("eu-1");
      expect(m.matchScore).toBe(1);
      return m.teams.flatMap((team) => {
        expect(team.tickets).toHaveLength(40);
        return team.tickets.map((t) => t.ticketId);
      });
    });
    expect(new Set(placed).size).toBe(400);
  });
});

describe("bodies the parser must refuse", () => {
  it("refuses thousands of nesting levels in an unknown ticket field with a 400, not a stack overflow", async () => {
    const app = newApp();
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const body = `{"game_mode":{"numTeams":2,"numPlayersPerTeam":1},"now":${NOW},"tickets":[{"ticketId":"a","joinTimestamp":${NOW},"rating":1,"servers":["eu-1"],"x":${deep}}]}`;
    for (const path of ["/matchmaking/basic", "/matchmaking/basic?explain=true"]) {
      const res = await post(app, body, path);
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
    }
    expect(await referenceAnswer(app)).toEqual(await FRESH);
  });

  it.each(["gzip", "deflate", "br"])("refuses a corrupt %s body with a 400", async (encoding) => {
    const app = newApp();
    const res = await request(app)
      .post("/matchmaking/basic")
      .set("content-type", "application/json")
      .set("content-encoding", encoding)
      .send(Buffer.from("definitely not compressed"));
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
    expect(await referenceAnswer(app)).toEqual(await FRESH);
  });
});

/** Sends a Buffer body as its bytes (superagent would JSON.stringify it for a JSON content type). */
const rawBytes = (body: unknown) => body as string;

describe("text the client meant", () => {
  it("answers escaped non-ASCII server names with exactly the names meant, as UTF-8", async () => {
    const names = ["S\u00e3o Paulo", "\ud83c\udfae-arena", "line\u2028sep", "caf\u00e9"];
    // Every UTF-16 unit above ASCII as \uXXXX, as Python's json.dumps writes it.
    const escaped = (s: string) =>
      `"${s
        .split("")
        .map((c) => (c.charCodeAt(0) < 0x80 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
        .join("")}"`;
    for (const name of names) {
      const body = `{"game_mode":{"numTeams":2,"numPlayersPerTeam":1},"now":${NOW},"tickets":[{"ticketId":"a","joinTimestamp":${NOW},"rating":1500,"servers":[${escaped(name)}]},{"ticketId":"b","joinTimestamp":${NOW},"rating":1500,"servers":[${escaped(name)}]}]}`;
      expect(Buffer.from(body).every((b) => b < 0x80)).toBe(true);
      const res = await post(newApp(), body);
      expect(res.status).toBe(200);
      expect(Buffer.from(res.text, "utf8").toString("utf8")).not.toContain("\ufffd");
      expect(res.body.matchSuggestions[0].server).toBe(name);
      // The tickets are the client's own text, escapes included.
      expect(res.text).toContain(escaped(name));
    }
  });

  it("answers escaped latency-map keys on advanced with the server meant", async () => {
    const body = `{"game_mode":{"numTeams":2,"numPlayersPerTeam":1},"now":${NOW},"tickets":[{"ticketId":"a","joinTimestamp":${NOW},"rating":1,"servers":{"S\\u00e3o Paulo":20}},{"ticketId":"b","joinTimestamp":${NOW},"rating":1,"servers":{"S\\u00e3o Paulo":30}}]}`;
    const res = await post(newApp(), body, "/matchmaking/advanced");
    expect(res.status).toBe(200);
    expect(res.body.matchSuggestions[0].server).toBe("S\u00e3o Paulo");
  });

  it("answers a ticket that repeats a key with the values it was matched on", async () => {
    const body = `{"game_mode":{"numTeams":2,"numPlayersPerTeam":1},"now":${NOW},"tickets":[{"ticketId":"first","ticketId":"a","joinTimestamp":${NOW},"rating":1500,"servers":["x"],"servers":["eu-1"]},{"ticketId":"b","joinTimestamp":${NOW},"rating":1500,"servers":["eu-1"]}]}`;
    const res = await post(newApp(), body);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('"first"');
    expect(res.text).not.toContain('["x"]');
    const team = res.body.matchSuggestions[0].teams.flatMap((t: { tickets: unknown[] }) => t.tickets);
    expect(team).toContainEqual(
      expect.objectContaining({ ticketId: "a", servers: ["eu-1"], exactEqualityConstraints: {} }),
    );
  });

  it("writes a rating given as 15e2 as 1500.0 on every answer path", async () => {
    const ascii = `{"game_mode":{"numTeams":2,"numPlayersPerTeam":1},"now":${NOW},"tickets":[{"ticketId":"a","joinTimestamp":${NOW},"rating":15e2,"servers":["eu-1"]}]}`;
    // ASCII and other UTF-8 bodies are answered from their bytes; invalid UTF-8 from the parsed tickets.
    const utf8 = Buffer.from(ascii.replace('"eu-1"', '"eu-\u00e9"'));
    const invalid = Buffer.from(ascii.replace('"eu-1"', '"eu-#"'));
    invalid[invalid.indexOf("#")] = 0xff;
    for (const body of [Buffer.from(ascii), utf8, invalid]) {
      const res = await request(newApp())
        .post("/matchmaking/basic")
        .set("content-type", "application/json")
        .serialize(rawBytes)
        .send(body);
      expect(res.status).toBe(200);
      expect(res.text).toContain('"rating":1500.0');
    }
  });

  it("answers a body with invalid UTF-8 in valid UTF-8, with the text that was matched", async () => {
    const text = `{"game_mode":{"numTeams":2,"numPlayersPerTeam":1},"now":${NOW},"tickets":[{"ticketId":"a#","joinTimestamp":${NOW},"rating":1500,"servers":["caf\u00e9"]},{"ticketId":"b","joinTimestamp":${NOW},"rating":1500,"servers":["caf\u00e9"]}]}`;
    const body = Buffer.from(text);
    body[body.indexOf("#")] = 0xc3; // a lead byte with no continuation
    const res = await request(newApp())
      .post("/matchmaking/basic")
      .set("content-type", "application/json")
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => done(null, Buffer.concat(chunks)));
      })
      .serialize(rawBytes)
      .send(body);
    expect(res.status).toBe(200);
    const bytes = res.body as Buffer;
    expect(isUtf8(bytes)).toBe(true);
    const answer = JSON.parse(bytes.toString("utf8"));
    const ids = answer.matchSuggestions[0].teams.flatMap((t: { tickets: Array<{ ticketId: string }> }) =>
      t.tickets.map((x) => x.ticketId),
    );
    expect(ids.sort()).toEqual(["a\ufffd", "b"]);
    expect(answer.matchSuggestions[0].server).toBe("caf\u00e9");
  });
});

describe("bounded answers to bad input", () => {
  it("lists at most 100 field errors and counts the rest", async () => {
    const tickets = Array.from({ length: 20_000 }, (_, i) => ({ ticketId: i, rating: "x", servers: [1, 2] }));
    const res = await post(newApp(), { game_mode: { numTeams: 2, numPlayersPerTeam: 2 }, tickets });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errorCount).toBeGreaterThanOrEqual(20_000);
    expect(res.text.length).toBeLessThan(20_000);
    expect(res.body.detail).toMatch(/and \d+ more$/);
  });

  it("lists every error of a small ticket and only the first of a very wide one", async () => {
    const res = await post(newApp(), {
      game_mode: { numTeams: 2, numPlayersPerTeam: 2 },
      tickets: [
        { ticketId: "a", joinTimestamp: "x", rating: "y", servers: ["eu-1"] },
        { ticketId: "b", joinTimestamp: NOW, rating: 1, servers: Array.from({ length: 100_000 }, () => 7) },
      ],
    });
    expect(res.status).toBe(400);
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(["/tickets/0/joinTimestamp", "/tickets/0/rating", "/tickets/1/servers/0"]);
  });

  it("refuses an explain query that is neither true nor false", async () => {
    const res = await request(newApp()).post("/matchmaking/basic?explain=yes").send(REFERENCE);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].pointer).toBe("/explain");
  });
});

const byteString = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes));

/** A request near a valid one: the fields a client controls, with values of any type. */
/** Mostly the valid value, sometimes anything: most requests pass, the rest probe each field. */
const mostly = <T>(valid: fc.Arbitrary<T>, junk: fc.Arbitrary<unknown>, weight = 6) =>
  fc.oneof({ arbitrary: valid, weight }, { arbitrary: junk, weight: 1 });
/** Ticket fields are many per request: each is junk more rarely, so whole queues still pass. */
const TICKET_FIELD_WEIGHT = 25;

/** A request near a valid one: the fields a client controls, with values of any type. */
const nearlyValid = fc.record(
  {
    game_mode: mostly(
      fc.record({
        numTeams: fc.integer({ min: 1, max: 4 }),
        numPlayersPerTeam: fc.integer({ min: 2, max: 4 }),
      }),
      fc.oneof(
        fc.record({
          numTeams: fc.integer({ min: -2, max: 6 }),
          numPlayersPerTeam: fc.integer({ min: -2, max: 6 }),
        }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    ),
    now: mostly(fc.constant(NOW), fc.jsonValue({ maxDepth: 1 })),
    explain: mostly(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
    tickets: fc.uniqueArray(
      fc.record(
        {
          ticketId: mostly(
            fc.string({ unit: "binary", minLength: 1, maxLength: 4 }),
            fc.jsonValue({ maxDepth: 1 }),
            TICKET_FIELD_WEIGHT,
          ),
          joinTimestamp: mostly(
            fc.integer({ min: NOW - 100, max: NOW + 10 }),
            fc.jsonValue({ maxDepth: 1 }),
            TICKET_FIELD_WEIGHT,
          ),
          rating: mostly(
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.jsonValue({ maxDepth: 1 }),
            TICKET_FIELD_WEIGHT,
          ),
          servers: mostly(
            fc.oneof(
              // A latency map makes the whole request a 400 on /basic: lists are more common.
              {
                arbitrary: fc.uniqueArray(fc.string({ unit: "binary", minLength: 1, maxLength: 3 }), {
                  minLength: 1,
                  maxLength: 3,
                }),
                weight: 5,
              },
              {
                arbitrary: fc.dictionary(
                  fc.string({ unit: "binary", minLength: 1, maxLength: 3 }),
                  fc.nat(300),
                  {
                    minKeys: 1,
                    maxKeys: 3,
                  },
                ),
                weight: 1,
              },
            ),
            fc.jsonValue({ maxDepth: 2 }),
            TICKET_FIELD_WEIGHT,
          ),
          partyId: mostly(fc.constantFrom("p", "q"), fc.jsonValue({ maxDepth: 1 }), TICKET_FIELD_WEIGHT),
          exactEqualityConstraints: mostly(
            fc.constantFrom({}, { map: "a" }),
            fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
          ),
          extra: fc.jsonValue({ maxDepth: 3 }),
        },
        { requiredKeys: ["ticketId", "joinTimestamp", "rating", "servers"] },
      ),
      { maxLength: 12, selector: (t) => JSON.stringify(t.ticketId) },
    ),
  },
  { requiredKeys: ["tickets", "game_mode"] },
);

/** A 200 holds the matchmaker's black-box rules (ALGORITHM.md) that need no knowledge of the algorithm; anything else is a 4xx problem. */
function expectSaneAnswer(res: request.Response, sentTickets: unknown): void {
  if (res.status === 200) {
    expect(validateMatchmakingResponse(res.body)).toBe(true);
    const ids = [
      ...res.body.matchSuggestions.flatMap((m: { teams: Array<{ tickets: Array<{ ticketId: string }> }> }) =>
        m.teams.flatMap((t) => t.tickets.map((x) => x.ticketId)),
      ),
      ...res.body.unmatchedTickets.map((x: { ticketId: string }) => x.ticketId),
    ];
    expect(ids.sort()).toEqual((sentTickets as Array<{ ticketId: string }>).map((t) => t.ticketId).sort());
    return;
  }
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect(typeof res.body.code).toBe("string");
}

describe("fuzzed requests", () => {
  it("answers any JSON value or byte string with a 200 that holds the rules or a 4xx problem", async () => {
    const app = newApp();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? "null"),
          byteString,
        ),
        fc.constantFrom("/matchmaking/basic", "/matchmaking/advanced"),
        async (body, path) => {
          const res = await request(app).post(path).set("content-type", "application/json").send(body);
          expect(res.status).toBeGreaterThanOrEqual(200);
          expect(res.status).toBeLessThan(500);
          if (res.status !== 200) expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
        },
      ),
      { numRuns: 150 },
    );
    expect(await referenceAnswer(app)).toEqual(await FRESH);
  });

  it("answers near-valid queues with a 200 that holds the rules or a 4xx problem", async () => {
    const app = newApp();
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        nearlyValid,
        fc.constantFrom("/matchmaking/basic", "/matchmaking/advanced?explain=true"),
        async (body, path) => {
          const res = await post(app, body, path);
          expectSaneAnswer(res, body.tickets);
          if (res.status === 200) accepted++;
        },
      ),
      { numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(40);
    expect(await referenceAnswer(app)).toEqual(await FRESH);
  });
});
