import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import pg from "pg";
import { createHarness, gameConfig, type Harness } from "./harness.js";
import { insertMatch, refuseMatchRows } from "./match-fixture.js";

/**
 * Confirmations that arrive while two confirmation statements are running share the next one.
 * A shared statement answers each confirmation as if it had run alone: an unknown match, another
 * game's, a failed one or a repeat get their own answer, and a statement that fails runs each of
 * its confirmations again alone.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.as("acme").put("/games/duel", gameConfig(2, 1)).expect(200);
  await h.as("acme").put("/games/other", gameConfig(2, 1)).expect(200);
});
afterAll(async () => {
  await h?.close();
});

const confirm = (gameId: string, matchId: string) =>
  h
    .as("acme", "server")
    .post(`/games/${gameId}/matches/${matchId}/statuses/confirmed`, {})
    .then((r) => r.status);

/** A sample's value in the stats service's /metrics text (0 if absent). */
async function metric(name: string): Promise<number> {
  const text = (await h.http.get("/metrics").expect(200)).text;
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

let players = 0;
/** A delivered 1v1 suggestion of `gameId` whose two players are matched in the queue; answers its id. */
async function suggestion(gameId: string, status: "delivered" | "failed" = "delivered"): Promise<string> {
  const matchId = crypto.randomUUID();
  const ids = [`p${++players}`, `p${++players}`];
  await insertMatch(h.db, "acme", {
    matchId,
    gameId,
    server: "eu-1",
    status: "delivered",
    teams: ids.map((playerId) => [{ playerId }]),
  });
  if (status === "failed") {
    await h.pool.query(`UPDATE matches SET status = 'failed' WHERE tenant_id = 'acme' AND match_id = $1`, [
      matchId,
    ]);
    return matchId;
  }
  await h.pool.query(
    `INSERT INTO queue_players (tenant_id, player_id, game_id, joined_at, updated_at, state, match_id)
     SELECT 'acme', id, $2, now(), now(), 'matched', $1 FROM unnest($3::text[]) AS id`,
    [matchId, gameId, ids],
  );
  return matchId;
}

async function matchState(matchId: string): Promise<{ status: string; queued: number }> {
  const res = await h.pool.query<{ status: string; queued: number }>(
    `SELECT status::text AS status,
            (SELECT count(*)::int FROM queue_players q WHERE q.tenant_id = m.tenant_id AND q.match_id = m.match_id) AS queued
       FROM matches m WHERE tenant_id = 'acme' AND match_id = $1`,
    [matchId],
  );
  return res.rows[0]!;
}

/**
 * Confirms two blocker matches while `holder` holds their rows, so both confirmation statements
 * are taken; sends `later` once they run, waits until all of those wait for a statement, then
 * releases the rows. Answers the later confirmations' statuses.
 */
async function behindBlockers(holder: pg.Client, later: () => Array<Promise<number>>): Promise<number[]> {
  const blockers = [await suggestion("duel"), await suggestion("duel")];
  await holder.query("BEGIN");
  await holder.query(
    "SELECT 1 FROM matches WHERE tenant_id = 'acme' AND match_id = ANY($1::text[]) FOR UPDATE",
    [blockers],
  );
  const before = await metric("stats_match_confirmation_batch_size_count");
  const first = blockers.map((id) => confirm("duel", id));
  await eventually(async () => (await metric("stats_match_confirmation_batch_size_count")) === before + 2);
  const sent = later();
  await eventually(() => h.stats.matchLifecycle.confirmationsWaiting === sent.length);
  await holder.query("COMMIT");
  expect(await Promise.all(first)).toEqual([204, 204]);
  return Promise.all(sent);
}

it("answers each confirmation of a shared statement as if it had run alone", async () => {
  const valid = [await suggestion("duel"), await suggestion("duel")];
  const ofAnotherGame = await suggestion("other");
  const failed = await suggestion("duel", "failed");
  const confirmedBefore = await suggestion("duel");
  expect(await confirm("duel", confirmedBefore)).toBe(204);
  const unknown = crypto.randomUUID();

  const holder = new pg.Client({ connectionString: h.database.url });
  await holder.connect();
  try {
    const countBefore = await metric("stats_match_confirmation_batch_size_count");
    const sumBefore = await metric("stats_match_confirmation_batch_size_sum");
    const answers = await behindBlockers(holder, () => [
      confirm("duel", valid[0]!),
      confirm("duel", valid[1]!),
      confirm("duel", unknown),
      confirm("duel", ofAnotherGame),
      confirm("duel", failed),
      confirm("duel", confirmedBefore),
      // The same match twice: never in one statement; the second is a repeat.
      confirm("duel", valid[0]!),
    ]);
    expect(answers).toEqual([204, 204, 404, 404, 409, 204, 204]);
    // The two blockers alone, then six confirmations in one statement, then the repeated match.
    expect(await metric("stats_match_confirmation_batch_size_count")).toBe(countBefore + 4);
    expect(await metric("stats_match_confirmation_batch_size_sum")).toBe(sumBefore + 2 + 7);
  } finally {
    await holder.query("ROLLBACK").catch(() => {});
    await holder.end();
  }
  for (const id of valid) expect(await matchState(id)).toEqual({ status: "confirmed", queued: 0 });
  expect(await matchState(ofAnotherGame)).toEqual({ status: "delivered", queued: 2 });
  expect((await matchState(failed)).status).toBe("failed");
  expect(await confirm("other", ofAnotherGame)).toBe(204);
});

it("runs each confirmation of a statement that failed again alone, so one cannot fail another", async () => {
  const doomed = await suggestion("duel");
  const fine = await suggestion("duel");
  const admin = new pg.Client({ connectionString: h.database.url });
  await admin.connect();
  // The doomed match's players cannot leave the queue, wherever that delete runs.
  const undo = await refuseMatchRows(admin, "queue_players", "DELETE", doomed);
  try {
    const holder = new pg.Client({ connectionString: h.database.url });
    await holder.connect();
    try {
      const countBefore = await metric("stats_match_confirmation_batch_size_count");
      const answers = await behindBlockers(holder, () => [confirm("duel", doomed), confirm("duel", fine)]);
      expect(answers).toEqual([500, 204]);
      // The blockers and the shared statement that failed (the reruns alone are not batches).
      expect(await metric("stats_match_confirmation_batch_size_count")).toBe(countBefore + 3);
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
    }
    expect(await matchState(fine)).toEqual({ status: "confirmed", queued: 0 });
    expect(await matchState(doomed)).toEqual({ status: "delivered", queued: 2 });
  } finally {
    await undo();
    await admin.end();
  }
});
