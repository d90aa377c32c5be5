import { median, round, timePost } from "./http-timing.js";
import { generateQueue } from "./queue-generator.js";

export interface FirstRequestCase {
  mode: string;
  tickets: number;
  /** The first request after /readyz answered 200 on a fresh process. */
  firstMs: number;
  /** Median of the requests after it (same body). */
  steadyMedianMs: number;
  ratio: number;
  /** With several fresh starts: each start's ratio (`ratio` is then their median). */
  ratios?: number[];
}

/**
 * How fast a freshly started matchmaker serves: `matchmakerUrl` must be a process that just turned
 * ready (started with the `/readyz` wait). The first 10k-ticket request is timed, then the same
 * request again until the time is steady.
 */
export async function runFirstRequestBenchmark(
  matchmakerUrl: string,
  runs = 15,
): Promise<FirstRequestCase[]> {
  const now = 1_750_000_000;
  const cases: FirstRequestCase[] = [];
  for (const [mode, perTeam] of [
    ["2v2", 2],
    ["5v5", 5],
  ] as const) {
    const tickets = generateQueue(10_000, now, 99 + perTeam);
    const body = Buffer.from(
      JSON.stringify({ game_mode: { numTeams: 2, numPlayersPerTeam: perTeam }, tickets, now }),
    );
    const first = await timePost(`${matchmakerUrl}/matchmaking/basic`, body);
    if (first.status !== 200) throw new Error(`first request answered ${first.status}`);
    const steady: number[] = [];
    for (let i = 0; i < runs; i++)
      steady.push((await timePost(`${matchmakerUrl}/matchmaking/basic`, body)).ms);
    const steadyMedianMs = median(steady);
    cases.push({
      mode,
      tickets: 10_000,
      firstMs: round(first.ms),
      steadyMedianMs: round(steadyMedianMs),
      ratio: round(first.ms / steadyMedianMs),
    });
  }
  return cases;
}

/**
 * One first request is one sample of a noisy quantity (a collection or a compile landing in it
 * doubles it), so the bench starts several fresh processes: per mode, the medians of their first
 * and steady times and of their ratios, with every start's ratio listed.
 */
export function summariseStarts(starts: readonly FirstRequestCase[][]): FirstRequestCase[] {
  return starts[0]!.map((c, i) => {
    const runs = starts.map((s) => s[i]!);
    return {
      mode: c.mode,
      tickets: c.tickets,
      firstMs: round(median(runs.map((r) => r.firstMs))),
      steadyMedianMs: round(median(runs.map((r) => r.steadyMedianMs))),
      ratio: round(median(runs.map((r) => r.ratio))),
      ratios: runs.map((r) => r.ratio),
    };
  });
}
