/**
 * Quality benchmark: replays a seeded queue second by second through a matching strategy and
 * measures what players feel: rating spread inside matches, team imbalance, waiting time, and the
 * share of arrivals that got a match. Compares `findMatches` with two baselines, scoring every
 * strategy's matches with the matchmaker's own `matchScore` at a fixed tolerance. Part of
 * `pnpm bench`; alone: `node bench/dist/matchmaker-quality.js` after `pnpm build`.
 */
import { fileURLToPath } from "node:url";
import { findMatches, type MatchGameMode, type MatchTicket, matchScore } from "@arena/matchmaker/matching";
import { mulberry32, normal } from "./queue-generator.js";

export interface QualityScenario {
  name: string;
  numTeams: number;
  numPlayersPerTeam: number;
  arrivalsPerSecond: number;
  /** Seconds with arrivals. */
  arrivalSeconds: number;
  /** Seconds stepped afterwards without arrivals; tickets still waiting then count as unmatched. */
  drainSeconds: number;
  seed: number;
}

export interface StrategyMetrics {
  strategy: string;
  matches: number;
  /** Mean over matches of (max - min rating) of the match's tickets. */
  meanRatingSpread: number;
  /** Mean over matches of (max - min) of the teams' mean ratings (0 for co-op, spread for 1-player teams). */
  meanTeamImbalance: number;
  /** Waits (match time - joinTimestamp, seconds) of matched tickets. */
  meanWait: number;
  p95Wait: number;
  /** Matched tickets / arrivals. */
  shareMatched: number;
  /** Mean matchScore of our formula with the scenario's fixed tolerance (the population's 300). */
  meanMatchScore: number;
}

export interface ScenarioReport {
  scenario: QualityScenario;
  arrivals: number;
  strategies: StrategyMetrics[];
  targets: {
    p95WaitAtMost25s: boolean;
    atLeast95PercentMatched: boolean;
    spreadAtMostHalfOfFcfs: boolean;
    imbalanceAtMostQuarterOfFcfs: boolean;
  };
}

export interface QualityReport {
  benchmark: "matchmaker-quality";
  targetWaitingTime: number;
  ratingDistribution: { mean: number; standardDeviation: number };
  servers: { total: number; perTicket: [number, number] };
  scenarios: ScenarioReport[];
}

export const DEFAULT_SCENARIOS: QualityScenario[] = [
  {
    name: "2v2, 2 arrivals/s",
    numTeams: 2,
    numPlayersPerTeam: 2,
    arrivalsPerSecond: 2,
    arrivalSeconds: 600,
    drainSeconds: 60,
    seed: 1,
  },
  {
    name: "2v2, 5 arrivals/s",
    numTeams: 2,
    numPlayersPerTeam: 2,
    arrivalsPerSecond: 5,
    arrivalSeconds: 600,
    drainSeconds: 60,
    seed: 2,
  },
  {
    name: "5v5, 5 arrivals/s",
    numTeams: 2,
    numPlayersPerTeam: 5,
    arrivalsPerSecond: 5,
    arrivalSeconds: 600,
    drainSeconds: 60,
    seed: 3,
  },
];

const TARGET_WAITING_TIME = 20;
const RATING_MEAN = 1500;
const RATING_SD = 300;
const SERVER_COUNT = 10;
const SERVERS_PER_TICKET: [number, number] = [3, 5];
const START = 1_700_000_000;

/** A strategy gets the waiting tickets and the time, and returns the matches it forms (teams of tickets). */
type Strategy = (gameMode: MatchGameMode, waiting: MatchTicket[], now: number) => MatchTicket[][][];

const ours: Strategy = (gameMode, waiting, now) =>
  findMatches(gameMode, waiting, { now, idSeed: "quality" }).matchSuggestions.map((m) =>
    m.teams.map((t) => t.tickets),
  );

/** Takes tickets in `order`; each free ticket seeds a match filled with the next tickets sharing a server. */
function chunkInOrder(gameMode: MatchGameMode, order: MatchTicket[]): MatchTicket[][][] {
  const size = gameMode.numTeams * gameMode.numPlayersPerTeam;
  const used = new Set<MatchTicket>();
  const matches: MatchTicket[][][] = [];
  for (let i = 0; i < order.length; i++) {
    const seed = order[i]!;
    if (used.has(seed)) continue;
    let shared = new Set(seed.servers as string[]);
    const members = [seed];
    for (let j = i + 1; j < order.length && members.length < size; j++) {
      const other = order[j]!;
      if (used.has(other)) continue;
      const common = new Set((other.servers as string[]).filter((s) => shared.has(s)));
      if (common.size === 0) continue;
      shared = common;
      members.push(other);
    }
    if (members.length < size) continue;
    for (const m of members) used.add(m);
    const teams: MatchTicket[][] = [];
    for (let t = 0; t < gameMode.numTeams; t++) {
      teams.push(members.slice(t * gameMode.numPlayersPerTeam, (t + 1) * gameMode.numPlayersPerTeam));
    }
    matches.push(teams);
  }
  return matches;
}

const firstComeFirstServed: Strategy = (gameMode, waiting) =>
  chunkInOrder(
    gameMode,
    [...waiting].sort((a, b) => a.joinTimestamp - b.joinTimestamp),
  );

const sortByRatingImmediately: Strategy = (gameMode, waiting) =>
  chunkInOrder(
    gameMode,
    [...waiting].sort((a, b) => a.rating - b.rating),
  );

export const STRATEGIES: ReadonlyArray<[name: string, strategy: Strategy]> = [
  ["arena (findMatches)", ours],
  ["first come, first served", firstComeFirstServed],
  ["sort by rating, match at once", sortByRatingImmediately],
];

function poisson(rand: () => number, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rand();
  while (p > limit) {
    k++;
    p *= rand();
  }
  return k;
}

/** The arrivals of a scenario: the same for every strategy. */
export function generateArrivals(scenario: QualityScenario): MatchTicket[] {
  const rand = mulberry32(scenario.seed);
  const servers = Array.from({ length: SERVER_COUNT }, (_, i) => `server-${i + 1}`);
  const tickets: MatchTicket[] = [];
  for (let second = 0; second < scenario.arrivalSeconds; second++) {
    const count = poisson(rand, scenario.arrivalsPerSecond);
    for (let i = 0; i < count; i++) {
      const wanted =
        SERVERS_PER_TICKET[0] + Math.floor(rand() * (SERVERS_PER_TICKET[1] - SERVERS_PER_TICKET[0] + 1));
      const pool = [...servers];
      const chosen: string[] = [];
      for (let k = 0; k < wanted; k++) chosen.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]!);
      tickets.push({
        ticketId: `ticket-${tickets.length}`,
        joinTimestamp: START + second,
        rating: Math.round(normal(rand, RATING_MEAN, RATING_SD)),
        servers: chosen,
      });
    }
  }
  return tickets;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The matchmaker's score with the population's standard deviation as a fixed tolerance. */
function score(spread: number, imbalance: number, perTeam: number, teams: number): number {
  return matchScore(spread, teams >= 2 && perTeam >= 2 ? imbalance : 0, RATING_SD);
}

export function simulate(scenario: QualityScenario, name: string, strategy: Strategy): StrategyMetrics {
  const gameMode: MatchGameMode = {
    numTeams: scenario.numTeams,
    numPlayersPerTeam: scenario.numPlayersPerTeam,
    targetWaitingTime: TARGET_WAITING_TIME,
  };
  const arrivals = generateArrivals(scenario);
  let next = 0;
  let waiting: MatchTicket[] = [];
  const waits: number[] = [];
  let matches = 0;
  let spreadSum = 0;
  let imbalanceSum = 0;
  let scoreSum = 0;
  for (let second = 0; second < scenario.arrivalSeconds + scenario.drainSeconds; second++) {
    const now = START + second;
    while (next < arrivals.length && arrivals[next]!.joinTimestamp <= now) waiting.push(arrivals[next++]!);
    const formed = strategy(gameMode, waiting, now);
    const matched = new Set<MatchTicket>();
    for (const teams of formed) {
      const ratings = teams.flat().map((t) => t.rating);
      const means = teams.map((team) => team.reduce((s, t) => s + t.rating, 0) / team.length);
      const spread = Math.max(...ratings) - Math.min(...ratings);
      const imbalance = Math.max(...means) - Math.min(...means);
      matches++;
      spreadSum += spread;
      imbalanceSum += imbalance;
      scoreSum += score(spread, imbalance, scenario.numPlayersPerTeam, scenario.numTeams);
      for (const t of teams.flat()) {
        matched.add(t);
        waits.push(now - t.joinTimestamp);
      }
    }
    if (matched.size > 0) waiting = waiting.filter((t) => !matched.has(t));
  }
  waits.sort((a, b) => a - b);
  return {
    strategy: name,
    matches,
    meanRatingSpread: matches === 0 ? 0 : spreadSum / matches,
    meanTeamImbalance: matches === 0 ? 0 : imbalanceSum / matches,
    meanWait: waits.length === 0 ? 0 : waits.reduce((s, w) => s + w, 0) / waits.length,
    p95Wait: percentile(waits, 0.95),
    shareMatched: arrivals.length === 0 ? 0 : waits.length / arrivals.length,
    meanMatchScore: matches === 0 ? 0 : scoreSum / matches,
  };
}

export async function runQualityBenchmark(
  scenarios: QualityScenario[] = DEFAULT_SCENARIOS,
): Promise<QualityReport> {
  const reports: ScenarioReport[] = [];
  for (const scenario of scenarios) {
    const strategies = STRATEGIES.map(([name, strategy]) => simulate(scenario, name, strategy));
    const [arena, fcfs] = strategies as [StrategyMetrics, StrategyMetrics];
    reports.push({
      scenario,
      arrivals: generateArrivals(scenario).length,
      strategies,
      targets: {
        p95WaitAtMost25s: arena.p95Wait <= 25,
        atLeast95PercentMatched: arena.shareMatched >= 0.95,
        spreadAtMostHalfOfFcfs: arena.meanRatingSpread <= 0.5 * fcfs.meanRatingSpread,
        imbalanceAtMostQuarterOfFcfs: arena.meanTeamImbalance <= 0.25 * fcfs.meanTeamImbalance,
      },
    });
    // Let other work run between scenarios when embedded in a larger bench run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return {
    benchmark: "matchmaker-quality",
    targetWaitingTime: TARGET_WAITING_TIME,
    ratingDistribution: { mean: RATING_MEAN, standardDeviation: RATING_SD },
    servers: { total: SERVER_COUNT, perTicket: SERVERS_PER_TICKET },
    scenarios: reports,
  };
}

/** The report as a plain-text table. */
export function formatQualityReport(report: QualityReport): string {
  const lines: string[] = [];
  const header = ["strategy", "matches", "spread", "imbalance", "wait avg", "wait p95", "matched", "score"];
  for (const scenario of report.scenarios) {
    lines.push(
      `${scenario.scenario.name} (${scenario.arrivals} arrivals, ${scenario.scenario.arrivalSeconds} s + ${scenario.scenario.drainSeconds} s drain)`,
    );
    const rows = scenario.strategies.map((s) => [
      s.strategy,
      String(s.matches),
      s.meanRatingSpread.toFixed(1),
      s.meanTeamImbalance.toFixed(1),
      `${s.meanWait.toFixed(1)} s`,
      `${s.p95Wait.toFixed(0)} s`,
      `${(100 * s.shareMatched).toFixed(1)} %`,
      s.meanMatchScore.toFixed(3),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const row = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    lines.push(row(header), ...rows.map(row));
    const failed = Object.entries(scenario.targets)
      .filter(([, ok]) => !ok)
      .map(([name]) => name);
    lines.push(failed.length === 0 ? "targets: all met" : `targets missed: ${failed.join(", ")}`, "");
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatQualityReport(await runQualityBenchmark()));
}
