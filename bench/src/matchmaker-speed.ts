import { median, round, timePost } from "./http-timing.js";
import { generateQueue } from "./queue-generator.js";

export interface SpeedCase {
  mode: string;
  tickets: number;
  requestMiB: number;
  runs: number;
  echoMedianMs: number;
  matchmakerMedianMs: number;
  /** Median of the per-run ratios (each matchmaker request against the echo request just before it). */
  ratio: number;
  matchedShare: number;
}

const MODES = [
  { name: "2v2", numTeams: 2, numPlayersPerTeam: 2 },
  { name: "5v5", numTeams: 2, numPlayersPerTeam: 5 },
];
const SIZES = [
  { tickets: 1_000, runs: 60 },
  { tickets: 10_000, runs: 25 },
  { tickets: 100_000, runs: 15 },
];

/**
 * Median wall time of the same request against the echo floor and the matchmaker, interleaved
 * run by run so machine noise hits both alike. The ratio is the median of the per-run ratios, which
 * cancels the drift of a shared machine's speed better than a ratio of two medians.
 */
export async function runSpeedBenchmark(echoUrl: string, matchmakerUrl: string): Promise<SpeedCase[]> {
  const now = 1_750_000_000;
  const cases: SpeedCase[] = [];
  for (const size of SIZES) {
    for (const mode of MODES) {
      const tickets = generateQueue(size.tickets, now, size.tickets + mode.numPlayersPerTeam);
      const body = Buffer.from(
        JSON.stringify({
          game_mode: { numTeams: mode.numTeams, numPlayersPerTeam: mode.numPlayersPerTeam },
          tickets,
          now,
        }),
      );
      const echo: number[] = [];
      const mm: number[] = [];
      let matched = 0;
      const warmup = 3;
      for (let i = 0; i < warmup + size.runs; i++) {
        const e = await timePost(`${echoUrl}/`, body);
        const m = await timePost(`${matchmakerUrl}/matchmaking/basic`, body);
        if (m.status !== 200)
          throw new Error(`matchmaker answered ${m.status} for ${size.tickets} ${mode.name}`);
        if (i >= warmup) {
          echo.push(e.ms);
          mm.push(m.ms);
        }
      }
      const check = await fetch(`${matchmakerUrl}/matchmaking/basic`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const answer = (await check.json()) as { unmatchedTickets: unknown[] };
      matched = 1 - answer.unmatchedTickets.length / size.tickets;
      const echoMedianMs = median(echo);
      const matchmakerMedianMs = median(mm);
      const row: SpeedCase = {
        mode: mode.name,
        tickets: size.tickets,
        requestMiB: round(body.length / 1048576),
        runs: size.runs,
        echoMedianMs: round(echoMedianMs),
        matchmakerMedianMs: round(matchmakerMedianMs),
        ratio: round(median(mm.map((ms, k) => ms / echo[k]!))),
        matchedShare: round(matched, 3),
      };
      console.log(
        `  ${row.mode} ${String(row.tickets).padStart(6)} tickets: echo ${row.echoMedianMs} ms, matchmaker ${row.matchmakerMedianMs} ms, ×${row.ratio}`,
      );
      cases.push(row);
    }
  }
  return cases;
}
