import { median, round, timePost } from "./http-timing.js";
import { generateQueue } from "./queue-generator.js";

/** One match shape at 100k tickets: what a request costs, from 2v2 up to the largest match allowed. */
export interface ShapeCase {
  shape: string;
  players: number;
  tickets: number;
  runs: number;
  medianMs: number;
  maxMs: number;
  status: number;
}

/** Explain on against explain off, the same queue, interleaved run by run. */
export interface ExplainCase {
  mode: string;
  tickets: number;
  runs: number;
  plainMedianMs: number;
  explainMedianMs: number;
  /** Median of the per-run ratios explain / plain. */
  ratio: number;
  unmatched: number;
}

const NOW = 1_750_000_000;
const SHAPE_TICKETS = 100_000;
/** From everyday modes to the largest match the default MAX_MATCH_PLAYERS (1000) allows. */
const SHAPES: Array<[teams: number, perTeam: number]> = [
  [2, 2],
  [2, 5],
  [25, 4],
  [100, 1],
  [1, 100],
  [2, 50],
  [2, 500],
  [10, 100],
  [1000, 1],
  [1, 1000],
];

const bodyOf = (teams: number, perTeam: number, tickets: unknown[], explain = false) =>
  Buffer.from(
    JSON.stringify({
      game_mode: { numTeams: teams, numPlayersPerTeam: perTeam },
      tickets,
      now: NOW,
      explain,
    }),
  );

/**
 * The worst case of match size (issue: a 2 × 50000 match once took 70 s): the request's cost for
 * every shape up to the configured maximum, plus a refused oversized mode, all at 100k tickets.
 */
export async function runShapeBenchmark(matchmakerUrl: string, runs = 3): Promise<ShapeCase[]> {
  const tickets = generateQueue(SHAPE_TICKETS, NOW, 4242);
  const cases: ShapeCase[] = [];
  const url = `${matchmakerUrl}/matchmaking/basic`;
  for (const [teams, perTeam] of [...SHAPES, [2, 50_000] as [number, number]]) {
    const body = bodyOf(teams, perTeam, tickets);
    await timePost(url, body);
    const times: number[] = [];
    let status = 0;
    for (let i = 0; i < runs; i++) {
      const r = await timePost(url, body);
      status = r.status;
      times.push(r.ms);
    }
    cases.push({
      shape: `${teams} × ${perTeam}`,
      players: teams * perTeam,
      tickets: SHAPE_TICKETS,
      runs,
      medianMs: round(median(times)),
      maxMs: round(Math.max(...times)),
      status,
    });
    console.log(`  ${teams} × ${perTeam}: ${round(median(times))} ms (status ${status})`);
  }
  return cases;
}

/** What `?explain=true` adds to a request; explain off must cost what it did before explain existed. */
export async function runExplainBenchmark(matchmakerUrl: string): Promise<ExplainCase[]> {
  const cases: ExplainCase[] = [];
  const url = `${matchmakerUrl}/matchmaking/basic`;
  for (const { tickets: count, runs } of [
    { tickets: 10_000, runs: 15 },
    { tickets: 100_000, runs: 7 },
  ]) {
    // Joins over the last 5 s: most tickets are fresh, so most of the queue waits and is explained.
    const tickets = generateQueue(count, NOW, count + 7, 5);
    const plain = bodyOf(2, 2, tickets);
    const explained = bodyOf(2, 2, tickets, true);
    const plainMs: number[] = [];
    const explainMs: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const p = await timePost(url, plain);
      const e = await timePost(url, explained);
      if (p.status !== 200 || e.status !== 200)
        throw new Error(`explain benchmark: ${p.status} / ${e.status}`);
      if (i < 2) continue;
      plainMs.push(p.ms);
      explainMs.push(e.ms);
      ratios.push(e.ms / p.ms);
    }
    const check = (await (
      await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: explained })
    ).json()) as { unmatchedTickets: unknown[]; unmatchedReasons: Record<string, unknown> };
    if (Object.keys(check.unmatchedReasons).length !== check.unmatchedTickets.length) {
      throw new Error("explain benchmark: not every unmatched ticket has a reason");
    }
    cases.push({
      mode: "2v2",
      tickets: count,
      runs,
      plainMedianMs: round(median(plainMs)),
      explainMedianMs: round(median(explainMs)),
      ratio: round(median(ratios)),
      unmatched: check.unmatchedTickets.length,
    });
  }
  return cases;
}
