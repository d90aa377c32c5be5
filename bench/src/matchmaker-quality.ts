/**
 * Quality benchmark: replays seeded arrival streams second by second through the matchmaker's
 * `findMatches` (in process) and two baselines, and builds for each scenario an offline reference
 * (a schedule that knows every arrival, held to our waits; `quality-reference.ts`). Reports what
 * players feel (rating spread, team imbalance, the favourite's expected score, waits, share matched)
 * and ours / reference for each figure. Part of `pnpm bench`; alone:
 * `node bench/dist/matchmaker-quality.js` after `pnpm build` (`--quick` for fewer annealing moves).
 */
import { fileURLToPath } from "node:url";
import { offlineReference, spreadLowerBound } from "./quality-reference.js";
import {
  arenaStrategy,
  firstComeFirstServed,
  type QualityFigures,
  qualityFigures,
  replay,
  sortByRatingImmediately,
} from "./quality-replay.js";
import { QUALITY_SCENARIOS, WAITS_BEFORE_ISSUE_26 } from "./quality-scenarios.js";
import { generateStream, type QualityScenario } from "./quality-streams.js";

export type { QualityScenario } from "./quality-streams.js";

export interface StrategyFigures extends QualityFigures {
  strategy: string;
}

/** Ours / reference; the favourite's figure as its excess over 50 %. */
export interface ReferenceRatios {
  spread: number;
  imbalance: number;
  favouriteExcess: number;
  /** Ours / the lower bound on the spread (`spreadLowerBound`): how far from the optimum at most. */
  spreadToBound: number;
}

export interface ScenarioTargets {
  /** Mean, p95 and maximum wait no longer, share matched no lower, than before issue 26. */
  waitsNoWorse: boolean;
  spreadWithin125PercentOfReference: boolean;
  imbalanceWithin150PercentOfReference: boolean;
  /** ≤ 52 % with 2 players a team, ≤ 51 % with more. */
  favouriteAtMost: boolean;
}

export interface ScenarioReport {
  scenario: QualityScenario;
  arrivals: number;
  strategies: StrategyFigures[];
  reference: QualityFigures;
  /** A lower bound on the mean spread of any schedule held to our maximum wait and share matched. */
  spreadBound: number;
  ratios: ReferenceRatios;
  /** Only for issue 26's target scenarios. */
  targets?: ScenarioTargets;
  seconds: number;
}

export interface QualityReport {
  benchmark: "matchmaker-quality";
  scenarios: ScenarioReport[];
}

const ratio = (ours: number, reference: number) =>
  reference > 0 ? ours / reference : ours > 0 ? Infinity : 1;

function targetsOf(scenario: QualityScenario, ours: QualityFigures, ratios: ReferenceRatios) {
  const before = WAITS_BEFORE_ISSUE_26[scenario.name];
  if (!scenario.target || before === undefined) return undefined;
  const favouriteBar = scenario.numPlayersPerTeam <= 2 ? 0.52 : 0.51;
  return {
    waitsNoWorse:
      ours.meanWait <= before.meanWait + 0.005 &&
      ours.p95Wait <= before.p95Wait &&
      ours.maxWait <= before.maxWait &&
      ours.shareMatched >= before.shareMatched - 0.0005,
    spreadWithin125PercentOfReference: ratios.spread <= 1.25,
    imbalanceWithin150PercentOfReference: ratios.imbalance <= 1.5,
    favouriteAtMost: ours.favourite <= favouriteBar,
  };
}

export function runScenario(scenario: QualityScenario, movesPerUnit?: number): ScenarioReport {
  const started = performance.now();
  const stream = generateStream(scenario);
  const online = replay(scenario, stream, arenaStrategy());
  const ours = qualityFigures(stream, online);
  const strategies: StrategyFigures[] = [
    { strategy: "arena (findMatches)", ...ours },
    {
      strategy: "first come, first served",
      ...qualityFigures(stream, replay(scenario, stream, firstComeFirstServed)),
    },
    {
      strategy: "sort by rating, match at once",
      ...qualityFigures(stream, replay(scenario, stream, sortByRatingImmediately)),
    },
  ];
  const options = movesPerUnit === undefined ? {} : { movesPerUnit };
  const reference = qualityFigures(
    stream,
    offlineReference(stream, online, scenario.numPlayersPerTeam, options),
  );
  const matchSize = scenario.numTeams * scenario.numPlayersPerTeam;
  const spreadBound = spreadLowerBound(stream, ours.matches, matchSize, ours.maxWait);
  const ratios = {
    spread: ratio(ours.spread, reference.spread),
    imbalance: ratio(ours.imbalance, reference.imbalance),
    favouriteExcess: ratio(ours.favourite - 0.5, reference.favourite - 0.5),
    spreadToBound: ratio(ours.spread, spreadBound),
  };
  const targets = targetsOf(scenario, ours, ratios);
  return {
    scenario,
    arrivals: stream.tickets.length,
    strategies,
    reference,
    spreadBound,
    ratios,
    ...(targets === undefined ? {} : { targets }),
    seconds: (performance.now() - started) / 1000,
  };
}

export async function runQualityBenchmark(
  scenarios: QualityScenario[] = QUALITY_SCENARIOS,
  movesPerUnit?: number,
): Promise<QualityReport> {
  const reports: ScenarioReport[] = [];
  for (const scenario of scenarios) {
    reports.push(runScenario(scenario, movesPerUnit));
    // Let other work run between scenarios when embedded in a larger bench run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { benchmark: "matchmaker-quality", scenarios: reports };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function figureCells(f: QualityFigures): string[] {
  return [
    f.spread.toFixed(1),
    f.imbalance.toFixed(1),
    pct(f.favourite),
    `${f.meanWait.toFixed(1)} / ${f.p95Wait} / ${f.maxWait} s`,
    pct(f.shareMatched),
  ];
}

export const FIGURE_HEADER = ["spread", "imbalance", "favourite", "wait mean / p95 / max", "matched"];

/** Rows of one scenario: each strategy, the reference, and ours / reference. */
export function scenarioRows(s: ScenarioReport): string[][] {
  return [
    ...s.strategies.map((f) => [f.strategy, ...figureCells(f)]),
    ["offline reference (knows every arrival)", ...figureCells(s.reference)],
    [
      "ours / reference",
      `×${s.ratios.spread.toFixed(2)}`,
      `×${s.ratios.imbalance.toFixed(2)}`,
      `×${s.ratios.favouriteExcess.toFixed(2)} of the excess over 50 %`,
      "",
      "",
    ],
    [
      "lower bound on spread (any schedule at our waits) / ours / bound",
      s.spreadBound === undefined
        ? ""
        : `${s.spreadBound.toFixed(1)} / ×${s.ratios.spreadToBound.toFixed(2)}`,
      "",
      "",
      "",
      "",
    ],
  ];
}

export function targetLine(s: ScenarioReport): string {
  if (s.targets === undefined) return "";
  const failed = Object.entries(s.targets)
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  return failed.length === 0 ? "issue 26 targets: all met" : `issue 26 targets missed: ${failed.join(", ")}`;
}

/** The report as plain-text tables. */
export function formatQualityReport(report: QualityReport): string {
  const lines: string[] = [];
  const header = ["strategy", ...FIGURE_HEADER];
  for (const s of report.scenarios) {
    lines.push(`${s.scenario.name} (${s.arrivals} arrivals, ${s.seconds.toFixed(1)} s to run)`);
    const rows = scenarioRows(s);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const row = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    lines.push(row(header), ...rows.map(row), targetLine(s), "");
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7);
  const scenarios = QUALITY_SCENARIOS.filter((s) => only === undefined || s.name.includes(only));
  const quick = process.argv.includes("--quick");
  const report = await runQualityBenchmark(scenarios, quick ? 60 : undefined);
  console.log(formatQualityReport(report));
  if (process.argv.includes("--json"))
    console.log(JSON.stringify(report.scenarios.map((s) => [s.scenario.name, s.strategies[0], s.reference])));
}
