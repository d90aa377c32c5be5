import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import pg from "pg";
import { createHarness, createMatch, gameConfig, type Harness, playMatch, result } from "./harness.js";
import { insertMatch, refuseMatchRows } from "./match-fixture.js";

/**
 * Completions that arrive while the one transaction slot is taken share the next transaction
 * (COMPLETION_TRANSACTIONS=1 here). A shared transaction answers each completion as if it had
 * run alone: a refused body keeps nothing it named, a replay gets its stored answer.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ completionTransactions: 1 });
  await h.as("acme").put("/games/duel", gameConfig(2, 1)).expect(200);
});
afterAll(async () => {
  await h?.close();
});

const path = (match: string) => `/games/duel/matches/${match}/statuses/completed`;

/** A sample's value in the stats service's /metrics text (0 if absent). */
async function metric(name: string): Promise<number> {
  const text = (await h.http.get("/metrics").expect(200)).text;
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

interface Answer {
  status: number;
  body: { players: Array<{ playerId: string; wins: number }>; errors?: Array<{ pointer: string }> };
}
const server = () => h.as("acme", "server");
const complete = (match: string, teams: string[][]): Promise<Answer> =>
  server()
    .post(path(match), result(teams))
    .then((r) => r);

/**
 * Completes a blocker match (players `b<n>-1`, `b<n>-2`) while `holder` holds its match row, so that completion
 * keeps the only transaction slot; sends `later` once its transaction has started, waits until all
 * of those wait for a transaction, then releases the row. Answers both sets of responses.
 */
let blockers = 0;
async function behindABlocker(
  holder: pg.Client,
  later: () => Array<Promise<Answer>>,
): Promise<{ first: Answer; rest: Answer[] }> {
  const teams = [[`b${++blockers}-1`], [`b${blockers}-2`]];
  const blocker = await createMatch(h, "acme", "duel", teams);
  await holder.query("BEGIN");
  await holder.query("SELECT 1 FROM matches WHERE tenant_id = 'acme' AND match_id = $1 FOR UPDATE", [
    blocker,
  ]);
  const batchesBefore = await metric("stats_match_completion_batch_size_count");
  const first = complete(blocker, teams);
  await eventually(
    async () => (await metric("stats_match_completion_batch_size_count")) === batchesBefore + 1,
  );
  const sent = later();
  await eventually(async () => (await metric("stats_match_completions_waiting")) === sent.length);
  await holder.query("COMMIT");
  return { first: await first, rest: await Promise.all(sent) };
}

it("answers each completion of a shared transaction as if it had run alone", async () => {
  const played = await playMatch(h, "acme", "duel", [["a1"], ["a2"]]);
  const replayBody = played.body;
  const playedId = played.matchId;
  const valid = await createMatch(h, "acme", "duel", [["c1"], ["c2"]]);
  const wrongRoster = await createMatch(h, "acme", "duel", [["d1"], ["d2"]]);
  const unconfirmed = crypto.randomUUID();
  await insertMatch(h.db, "acme", {
    matchId: unconfirmed,
    gameId: "duel",
    server: "eu-1",
    status: "delivered",
    teams: [[{ playerId: "e1" }], [{ playerId: "e2" }]],
  });

  const holder = new pg.Client({ connectionString: h.database.url });
  await holder.connect();
  try {
    const batchesBefore = await metric("stats_match_completion_batch_size_count");
    const sizeBefore = await metric("stats_match_completion_batch_size_sum");
    const { first, rest } = await behindABlocker(holder, () => [
      complete(valid, [["c1"], ["c2"]]),
      complete(wrongRoster, [["d1"], ["ghost"]]),
      complete(unconfirmed, [["e1"], ["e2"]]),
      complete(playedId, [["a1"], ["a2"]]),
    ]);
    expect(first.status).toBe(200);
    const [ok, refused, conflict, replay] = rest as [Answer, Answer, Answer, Answer];
    expect(ok.status).toBe(200);
    expect(ok.body.players.map((p) => [p.playerId, p.wins])).toEqual([
      ["c1", 1],
      ["c2", 0],
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: "/teams/1/players/0/playerId" })]),
    );
    expect(conflict.status).toBe(409);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(replayBody);

    // Two transactions: the blocker alone, then the other four together.
    expect(await metric("stats_match_completion_batch_size_count")).toBe(batchesBefore + 2);
    expect(await metric("stats_match_completion_batch_size_sum")).toBe(sizeBefore + 5);
  } finally {
    await holder.query("ROLLBACK").catch(() => {});
    await holder.end();
  }

  // Nothing the refused bodies named was kept; the replay counted nothing twice.
  await h.as("acme").get("/players/ghost").expect(404);
  await h.as("acme").get("/players/d1").expect(404);
  await h.as("acme").get("/players/e1").expect(404);
  expect((await h.as("acme").get("/players/a1").expect(200)).body.totalMatchesPlayed).toBe(1);
  expect((await h.as("acme").get("/players/c1").expect(200)).body.totalMatchesPlayed).toBe(1);
  expect((await h.as("acme").get("/players/b1-1").expect(200)).body.totalMatchesPlayed).toBe(1);
});

it("runs each completion of a transaction whose write failed again alone, so one cannot fail another", async () => {
  const doomed = await createMatch(h, "acme", "duel", [["g1"], ["g2"]]);
  const fine = await createMatch(h, "acme", "duel", [["k1"], ["k2"]]);
  const admin = new pg.Client({ connectionString: h.database.url });
  await admin.connect();
  // A history row of the doomed match fails its write, wherever that write runs.
  const undo = await refuseMatchRows(admin, "match_results", "INSERT", doomed);
  try {
    const { first, rest } = await behindABlocker(admin, () => [
      complete(doomed, [["g1"], ["g2"]]),
      complete(fine, [["k1"], ["k2"]]),
    ]);
    expect(first.status).toBe(200);
    const [failed, completed] = rest as [Answer, Answer];
    expect(failed.status).toBe(500);
    expect(completed.status).toBe(200);
    expect((await h.as("acme").get("/players/k1").expect(200)).body.totalMatchesPlayed).toBe(1);
    await h.as("acme").get("/players/g1").expect(404);
  } finally {
    await admin.query("ROLLBACK").catch(() => {});
    await undo();
    await admin.end();
  }
});
