import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createHarness, createMatch, gameConfig, type Harness } from "./harness.js";

let h: Harness;
let matchId: string;
beforeAll(async () => {
  h = await createHarness();
  await h.as("fuzz").put("/games/duel", gameConfig()).expect(200);
  matchId = await createMatch(h, "fuzz", "duel", [["a"], ["b"]]);
});
afterAll(async () => {
  await h?.close();
});

// Bodies shaped like the real ones, with any value in any field, plus arbitrary JSON.
const anyValue = fc.jsonValue({ maxDepth: 3 });
const leaderboardBody = fc.oneof(
  anyValue,
  fc.record(
    {
      count: fc.oneof(fc.integer({ min: -5, max: 600 }), anyValue),
      fromRank: anyValue,
      playerId: anyValue,
      season: anyValue,
    },
    { requiredKeys: [] },
  ),
);
const completionBody = fc.oneof(
  anyValue,
  fc.record({
    teams: fc.oneof(
      anyValue,
      fc.array(
        fc.record({
          rank: fc.oneof(fc.integer({ min: -1, max: 3 }), anyValue),
          players: fc.oneof(
            anyValue,
            fc.array(
              fc.record({ playerId: fc.oneof(fc.constantFrom("a", "b", "c"), anyValue), score: anyValue }),
            ),
          ),
        }),
        { maxLength: 3 },
      ),
    ),
  }),
);

const isProblem = (res: { status: number; headers: Record<string, string> }) =>
  res.status < 500 &&
  (res.status < 400 || /^application\/problem\+json/.test(res.headers["content-type"] ?? ""));

describe("client input (fast-check)", () => {
  it("answers any leaderboard body with 200 or a 4xx problem, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(leaderboardBody, async (body) => {
        const res = await h
          .as("fuzz", "server")
          .post("/games/duel/leaderboard")
          .type("json")
          .send(JSON.stringify(body));
        expect(isProblem(res)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it("answers any completion body with 200 or a 4xx problem, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(completionBody, async (body) => {
        const res = await h
          .as("fuzz", "server")
          .post(`/games/duel/matches/${matchId}/statuses/completed`)
          .type("json")
          .send(JSON.stringify(body));
        expect(isProblem(res)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it("answers any history query with 200 or a 4xx problem", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom("limit", "cursor", "season", "gameId", "x"), fc.string()),
        async (query) => {
          const res = await h.as("fuzz", "server").get("/players/a/history").query(query);
          expect(isProblem(res)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("answers any queue, status-update or backfill body with a 2xx or a 4xx problem, and the queue still answers as before", async () => {
    const api = h.as("fuzz-queue", "server");
    await h
      .as("fuzz-queue")
      .put("/games/q", { ...gameConfig(2, 2), targetWaitingTime: 0 })
      .expect(200);
    await api
      .post("/games/q/players", { players: ["r1", "r2", "r3", "r4"].map((playerId) => ({ playerId })) })
      .expect(204);
    await h.stats.loop.runOnce();
    const [match] = (await api.post("/games/q/matches")).body;
    const reference = async () => (await api.get("/games/q/players")).body;
    const before = await reference();
    const idList = fc.oneof(
      anyValue,
      fc.array(fc.oneof(fc.constantFrom("r1", "r2", "zz"), anyValue), { maxLength: 3 }),
    );
    const submission = fc.oneof(
      anyValue,
      fc.record(
        {
          partyName: anyValue,
          players: fc.oneof(
            anyValue,
            fc.array(
              fc.record(
                {
                  playerId: fc.oneof(fc.constantFrom("r1", "fresh"), anyValue),
                  servers: anyValue,
                  reference: anyValue,
                },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    const target = fc.oneof(
      submission.map((body) => ({ path: "/games/q/players", body, changesQueue: true })),
      fc.record({ remove: idList, requeue: idList }, { requiredKeys: [] }).map((body) => ({
        path: `/games/q/matches/${match.id}/statuses/failed`,
        body,
        changesQueue: true,
      })),
      fc
        .record(
          { droppedPlayerId: anyValue, backfillingRequestId: anyValue, matchScores: anyValue },
          { requiredKeys: [] },
        )
        .map((body) => ({ path: `/games/q/matches/${match.id}/backfill`, body, changesQueue: false })),
    );
    await fc.assert(
      fc.asyncProperty(target, async ({ path, body }) => {
        const res = await api.post(path).type("json").send(JSON.stringify(body));
        expect(isProblem(res)).toBe(true);
        if (res.status >= 400) {
          // A refused request changed nothing: the queue answers exactly as before.
          expect(await reference()).toEqual(before);
        } else {
          // Put the reference state back for the next case.
          await api.delete("/games/q/queue").expect(200);
          await api.post("/games/q/players", {
            players: ["r1", "r2", "r3", "r4"].map((playerId) => ({ playerId })),
          });
          await h.stats.loop.runOnce();
          const [again] = (await api.post("/games/q/matches")).body;
          match.id = again.id;
          before.splice(0, before.length, ...(await reference()));
        }
      }),
      { numRuns: 120 },
    );
  });
});
