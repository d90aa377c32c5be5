import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";

/**
 * The queue gauges (`stats_queue_waiting_players`, `stats_queue_oldest_wait_seconds`) as a scrape
 * sees them, with the loop running as it does in production: they must say what the queue holds
 * now, not what it held at a game's last tick.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

let tenantSeq = 0;
async function tenantWithGames(gameIds: string[]) {
  const tenant = `gauges-${++tenantSeq}-${Date.now()}`;
  for (const gameId of gameIds) {
    await h
      .as(tenant)
      .put(`/games/${gameId}`, {
        numTeams: 2,
        numPlayersPerTeam: 2,
        servers: ["eu-1"],
        targetWaitingTime: 0,
      })
      .expect(200);
  }
  return { tenant, api: h.as(tenant, "server") };
}

const queuePlayers = (api: ReturnType<Harness["as"]>, gameId: string, ids: string[]) =>
  api.post(`/games/${gameId}/players`, { players: ids.map((playerId) => ({ playerId })) }).expect(204);

/** The tenant's series of one gauge in a real scrape: `{game: value}`. */
async function gauge(name: string, tenant: string): Promise<Record<string, number>> {
  const text = (await h.http.get("/metrics").expect(200)).text;
  const series: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) || !line.includes(`tenant="${tenant}"`)) continue;
    const game = /game="([^"]*)"/.exec(line)?.[1] as string;
    series[game] = Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return series;
}

describe("the queue gauges", () => {
  it("show the players waiting now, and nothing once a match took them all", async () => {
    const { tenant, api } = await tenantWithGames(["ranked"]);
    await queuePlayers(api, "ranked", ["p1", "p2", "p3"]);
    h.clock.advance(12_000);
    await queuePlayers(api, "ranked", ["p4"]);
    h.clock.advance(7_000);
    expect(await gauge("stats_queue_waiting_players", tenant)).toEqual({ ranked: 4 });
    expect(await gauge("stats_queue_oldest_wait_seconds", tenant)).toEqual({ ranked: 19 });

    // The loop forms the 2v2 match: nobody waits any more.
    await h.stats.loop.runOnce();
    const matches = await api.post("/games/ranked/matches").expect(200);
    expect(matches.body).toHaveLength(1);
    // Submit to suggestion: three players waited 19 s, the fourth 7 s.
    const scrape = (await h.http.get("/metrics").expect(200)).text;
    const waited = (series: string) =>
      new RegExp(
        `^stats_queue_wait_to_suggestion_seconds_${series}[^}]*game="ranked"[^}]*\\} (\\d+)$`,
        "m",
      ).exec(scrape)?.[1];
    expect([waited("count\\{"), waited("sum\\{"), waited('bucket\\{le="10"')]).toEqual(["4", "64", "1"]);
    h.clock.advance(60_000);
    await h.stats.loop.runOnce();
    expect(await gauge("stats_queue_waiting_players", tenant)).toEqual({});
    expect(await gauge("stats_queue_oldest_wait_seconds", tenant)).toEqual({});
  });

  it("follow the wait as it grows between ticks, and drop a game whose players left", async () => {
    const { tenant, api } = await tenantWithGames(["solo"]);
    await queuePlayers(api, "solo", ["s1", "s2"]);
    await h.stats.loop.runOnce();
    h.clock.advance(45_000);
    // No tick ran since: the scrape still tells the wait as it is.
    expect(await gauge("stats_queue_oldest_wait_seconds", tenant)).toEqual({ solo: 45 });
    await api.delete("/games/solo/players/s1").expect(204);
    expect(await gauge("stats_queue_waiting_players", tenant)).toEqual({ solo: 1 });
    await api.delete("/games/solo/players/s2").expect(204);
    await h.stats.loop.runOnce();
    expect(await gauge("stats_queue_waiting_players", tenant)).toEqual({});
  });

  it("keep series only for games with a queue: emptied queues take theirs away", async () => {
    const games = Array.from({ length: 12 }, (_, i) => `mode-${i}`);
    const { tenant, api } = await tenantWithGames(games);
    for (const gameId of games) await queuePlayers(api, gameId, [`${gameId}-a`]);
    await h.stats.loop.runOnce();
    expect(Object.keys(await gauge("stats_queue_waiting_players", tenant))).toHaveLength(12);
    for (const gameId of games.slice(0, 10)) await api.delete(`/games/${gameId}/queue`).expect(200);
    await h.stats.loop.runOnce();
    expect(await gauge("stats_queue_waiting_players", tenant)).toEqual({ "mode-10": 1, "mode-11": 1 });
    expect(Object.keys(await gauge("stats_queue_oldest_wait_seconds", tenant)).sort()).toEqual([
      "mode-10",
      "mode-11",
    ]);
  });
});
