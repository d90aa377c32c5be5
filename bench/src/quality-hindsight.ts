/**
 * Where the offline reference's advantage comes from (ALGORITHM.md §8, "What hindsight buys"). Not
 * part of `pnpm bench`; run after `pnpm build`:
 *
 *   node bench/dist/quality-hindsight.js [--only=name] [--seeds=N] [--reference-seeds=N]
 *
 * Two measurements on issue 26's target scenarios:
 *
 * 1. **Lookahead.** The matchmaker replayed with foreknowledge of the next L seconds of arrivals:
 *    each second, first the matches whose oldest ticket reached `targetWaitingTime` (or
 *    `maxWaitingTime`) are formed from the tickets present, exactly as `findMatches` forms them;
 *    then `findMatches` runs on the tickets left and the arrivals of the next L seconds, and only
 *    its matches made of present tickets are formed (a present ticket whose best match holds a
 *    future arrival waits for it). A ticket past the target never waits for the future, so the waits
 *    stay near ours; L = 0 is the control.
 * 2. **The promise.** The reference of the benchmark may keep a ticket waiting past
 *    `targetWaitingTime` while compatible partners are free, which the matchmaker promises never to do
 *    (ALGORITHM.md §2). Annealed again with no match spanning more than the target unless ours formed
 *    the same match (`keepPromise`), on the first reference seeds: both references' spread and
 *    imbalance, and ours / each.
 * 3. **Flexibility.** Per ticket, by how many servers it can use: the mean wait, spread and imbalance
 *    of the match it lands in, ours against the reference's.
 */
import { fileURLToPath } from "node:url";
import { findMatches, type MatchTicket, SearchScratch } from "@arena/matchmaker/matching";
import { offlineReference } from "./quality-reference.js";
import {
  arenaStrategy,
  type FormedMatch,
  gameModeOf,
  matchShape,
  meanFigures,
  type QualityFigures,
  qualityFigures,
  replay,
} from "./quality-replay.js";
import { QUALITY_SCENARIOS, TARGET_SEEDS } from "./quality-scenarios.js";
import { generateStream, type QualityScenario, START, type Stream } from "./quality-streams.js";

/** Our matchmaker with foreknowledge of the next `seconds` of arrivals (see the file's comment). */
export function replayWithLookahead(
  scenario: QualityScenario,
  stream: Stream,
  seconds: number,
): FormedMatch[] {
  const gameMode = gameModeOf(scenario);
  const scratch = new SearchScratch();
  const index = new Map<MatchTicket, number>();
  for (let i = 0; i < stream.tickets.length; i++) index.set(stream.tickets[i]!, i);
  const limit = Math.min(scenario.targetWaitingTime, scenario.maxWaitingTime ?? Number.POSITIVE_INFINITY);
  const matched = new Uint8Array(stream.tickets.length);
  const formed: FormedMatch[] = [];
  let present = 0;
  let waiting: number[] = [];
  const form = (teams: number[][], at: number) => {
    formed.push({ teams, at });
    for (const team of teams) for (const t of team) matched[t] = 1;
  };
  const run = (tickets: number[], now: number) =>
    findMatches(
      gameMode,
      tickets.map((t) => stream.tickets[t]!),
      { now, idSeed: "lookahead", scratch },
    ).matchSuggestions.map((m) => m.teams.map((team) => team.tickets.map((t) => index.get(t)!)));

  for (let second = 0; second < scenario.arrivalSeconds + scenario.drainSeconds; second++) {
    const now = START + second;
    while (present < stream.tickets.length && stream.tickets[present]!.joinTimestamp <= now)
      waiting.push(present++);
    // The tickets past the target take their best match among those present, as they would.
    for (const teams of run(waiting, now)) {
      const oldest = Math.min(...teams.flat().map((t) => stream.tickets[t]!.joinTimestamp));
      if (now - oldest >= limit) form(teams, now);
    }
    waiting = waiting.filter((t) => matched[t] === 0);
    if (seconds > 0) {
      const visible = [...waiting];
      for (
        let t = present;
        t < stream.tickets.length && stream.tickets[t]!.joinTimestamp <= now + seconds;
        t++
      )
        visible.push(t);
      for (const teams of run(visible, now))
        if (teams.every((team) => team.every((t) => t < present))) form(teams, now);
    } else {
      for (const teams of run(waiting, now)) form(teams, now);
    }
    waiting = waiting.filter((t) => matched[t] === 0);
  }
  return formed;
}

/**
 * Of the matches formed after their oldest ticket waited `promise` seconds, how many had, at the
 * second it did, a match's worth of other players (`matchSize − 1`) on one of its servers still
 * waiting after that second's matches: a ticket the matchmaker would have matched then (ALGORITHM.md
 * §2). Players count by party size, so with parties it is an upper estimate (they may not fill a
 * match exactly).
 */
export function promiseBreaks(
  stream: Stream,
  matches: FormedMatch[],
  promise: number,
  matchSize: number,
): { late: number; broken: number } {
  const formedAt = new Float64Array(stream.tickets.length).fill(Number.POSITIVE_INFINITY);
  for (const m of matches) for (const team of m.teams) for (const t of team) formedAt[t] = m.at;
  const maskOf = (t: number) => stream.units[stream.ticketUnit[t]!]!.mask;
  let late = 0;
  let broken = 0;
  for (const m of matches) {
    const members = m.teams.flat();
    const oldest = members.reduce((a, b) =>
      stream.tickets[b]!.joinTimestamp < stream.tickets[a]!.joinTimestamp ? b : a,
    );
    const reached = stream.tickets[oldest]!.joinTimestamp + promise;
    if (m.at <= reached) continue;
    late++;
    const mask = maskOf(oldest);
    const waiting = new Map<number, number>();
    // Tickets join in order; those that joined by `reached` and still wait after its matches count.
    for (let t = 0; t < stream.tickets.length && stream.tickets[t]!.joinTimestamp <= reached; t++) {
      if (t === oldest || formedAt[t]! <= reached) continue;
      for (let shared = maskOf(t) & mask; shared !== 0; shared &= shared - 1) {
        const bit = shared & -shared;
        waiting.set(bit, (waiting.get(bit) ?? 0) + 1);
      }
    }
    if ([...waiting.values()].some((players) => players >= matchSize - 1)) broken++;
  }
  return { late, broken };
}

export interface FlexibilityRow {
  servers: number;
  tickets: number;
  wait: number;
  spread: number;
  imbalance: number;
}

/** Per ticket, grouped by its number of usable servers: its wait, its match's spread and imbalance. */
export function byFlexibility(stream: Stream, matches: FormedMatch[]): FlexibilityRow[] {
  const ratings = stream.tickets.map((t) => t.rating);
  const rows = new Map<number, FlexibilityRow>();
  for (const m of matches) {
    const [spread, imbalance] = matchShape(ratings, m.teams);
    for (const team of m.teams)
      for (const t of team) {
        const servers = bitCount(stream.units[stream.ticketUnit[t]!]!.mask);
        const row = rows.get(servers) ?? { servers, tickets: 0, wait: 0, spread: 0, imbalance: 0 };
        row.tickets++;
        row.wait += m.at - stream.tickets[t]!.joinTimestamp;
        row.spread += spread;
        row.imbalance += imbalance;
        rows.set(servers, row);
      }
  }
  return [...rows.values()]
    .sort((a, b) => a.servers - b.servers)
    .map((r) => ({
      ...r,
      wait: r.wait / r.tickets,
      spread: r.spread / r.tickets,
      imbalance: r.imbalance / r.tickets,
    }));
}

function bitCount(mask: number): number {
  let count = 0;
  for (let m = mask; m !== 0; m &= m - 1) count++;
  return count;
}

const line = (f: QualityFigures) =>
  `${f.spread.toFixed(1)} / ${f.imbalance.toFixed(2)} / ${(100 * f.favourite).toFixed(2)} %, waits ` +
  `${f.meanWait.toFixed(2)} / ${f.p95Wait.toFixed(2)} / ${f.maxWait.toFixed(2)} s, ${(100 * f.shareMatched).toFixed(2)} %`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const only = arg("only");
  const seeds = Number(arg("seeds") ?? TARGET_SEEDS);
  const referenceSeeds = Number(arg("reference-seeds") ?? 3);
  for (const scenario of QUALITY_SCENARIOS.filter(
    (s) => s.target && (only === undefined || s.name.includes(only)),
  )) {
    console.log(
      `${scenario.name}: spread / imbalance / favourite, waits mean / p95 / max, matched (${seeds} streams)`,
    );
    const streams = Array.from({ length: seeds }, (_, k) => {
      const seeded = { ...scenario, seed: scenario.seed + 100 * k };
      return { seeded, stream: generateStream(seeded) };
    });
    const ours = streams.map(({ seeded, stream }) => ({
      stream,
      matches: replay(seeded, stream, arenaStrategy()),
    }));
    console.log(
      `  ours                ${line(meanFigures(ours.map((o) => qualityFigures(o.stream, o.matches))))}`,
    );
    for (const seconds of [0, 1, 2, 3]) {
      const figures = streams.map(({ seeded, stream }) =>
        qualityFigures(stream, replayWithLookahead(seeded, stream, seconds)),
      );
      console.log(`  lookahead ${seconds} s       ${line(meanFigures(figures))}`);
    }
    const rows = new Map<number, { ours: FlexibilityRow[]; reference: FlexibilityRow[] }>();
    const sums = {
      ours: { spread: 0, imbalance: 0 },
      reference: { spread: 0, imbalance: 0 },
      promise: { spread: 0, imbalance: 0 },
    };
    const promise = Math.min(scenario.targetWaitingTime, scenario.maxWaitingTime ?? Number.POSITIVE_INFINITY);
    const breaks = { ours: { late: 0, broken: 0 }, reference: { late: 0, broken: 0 } };
    const matchSize = scenario.numTeams * scenario.numPlayersPerTeam;
    for (const { stream, matches } of ours.slice(0, referenceSeeds)) {
      const reference = offlineReference(stream, matches, scenario.numPlayersPerTeam);
      const kept = offlineReference(stream, matches, scenario.numPlayersPerTeam, { keepPromise: promise });
      for (const [kind, found] of [
        ["ours", matches],
        ["reference", reference],
      ] as const) {
        const b = promiseBreaks(stream, found, promise, matchSize);
        breaks[kind].late += b.late;
        breaks[kind].broken += b.broken;
      }
      for (const [kind, found] of [
        ["ours", matches],
        ["reference", reference],
        ["promise", kept],
      ] as const) {
        const f = qualityFigures(stream, found);
        sums[kind].spread += f.spread;
        sums[kind].imbalance += f.imbalance;
      }
      for (const [kind, found] of [
        ["ours", byFlexibility(stream, matches)],
        ["reference", byFlexibility(stream, reference)],
      ] as const)
        for (const row of found) {
          const entry = rows.get(row.servers) ?? { ours: [], reference: [] };
          entry[kind].push(row);
          rows.set(row.servers, entry);
        }
    }
    const figures = (kind: keyof typeof sums) =>
      `${(sums[kind].spread / referenceSeeds).toFixed(1)} / ${(sums[kind].imbalance / referenceSeeds).toFixed(2)}`;
    const ratioLine = (kind: "reference" | "promise") =>
      `${figures(kind)}, ours / it ×${(sums.ours.spread / sums[kind].spread).toFixed(2)} / ` +
      `×${(sums.ours.imbalance / sums[kind].imbalance).toFixed(2)}`;
    console.log(`  on ${referenceSeeds} streams, spread / imbalance: ours ${figures("ours")}`);
    console.log(
      `  matches formed after their oldest waited ${promise} s, and of those with a match's worth of ` +
        `players on a server of it still waiting after that second: ours ${breaks.ours.late}, ${breaks.ours.broken}; ` +
        `reference ${breaks.reference.late}, ${breaks.reference.broken}`,
    );
    console.log(`    reference                    ${ratioLine("reference")}`);
    console.log(`    reference keeping the promise ${ratioLine("promise")}`);
    console.log("  by usable servers, ours | reference: wait, spread, imbalance");
    const avg = (list: FlexibilityRow[], key: "wait" | "spread" | "imbalance") =>
      list.reduce((s, r) => s + r[key] * r.tickets, 0) / list.reduce((s, r) => s + r.tickets, 0);
    for (const [servers, { ours: o, reference: r }] of [...rows].sort((a, b) => a[0] - b[0]))
      console.log(
        `    ${servers} server${servers === 1 ? " " : "s"}  ${avg(o, "wait").toFixed(2)} s, ${avg(o, "spread").toFixed(1)}, ` +
          `${avg(o, "imbalance").toFixed(2)} | ${avg(r, "wait").toFixed(2)} s, ${avg(r, "spread").toFixed(1)}, ${avg(r, "imbalance").toFixed(2)}`,
      );
  }
}
