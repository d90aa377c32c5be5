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
  meanFigures,
  type QualityFigures,
  qualityFigures,
  replay,
  sortByRatingImmediately,
} from "./quality-replay.js";
import {
  QUALITY_SCENARIOS,
  REFERENCE_SEEDS,
  TARGET_SEEDS,
  WAITS_BEFORE_ISSUE_26,
} from "./quality-scenarios.js";
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

/**
 * Issue 26's target scenarios over `TARGET_SEEDS` streams (the recorded seed first): the means of
 * our figures, and ours / reference as the ratio of the sums over the first `REFERENCE_SEEDS`.
 */
export interface SeedSummary {
  seeds: number;
  referenceSeeds: number;
  /** Each figure's mean over the seeds. */
  ours: QualityFigures;
  /** The reference's figures' means over the reference seeds. */
  reference: QualityFigures;
  /** Σ ours / Σ reference over the reference seeds (spread, imbalance; the favourite's excess over 50 %). */
  ratios: Omit<ReferenceRatios, "spreadToBound">;
  /** The waits before issue 26 on the same seeds (means). */
  before: (typeof WAITS_BEFORE_ISSUE_26)[string];
}

/** Issue 26's targets, judged on the means over many streams (`SeedSummary`). */
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
  overSeeds?: SeedSummary;
  targets?: ScenarioTargets;
  seconds: number;
}

export interface QualityReport {
  benchmark: "matchmaker-quality";
  scenarios: ScenarioReport[];
}

const ratio = (ours: number, reference: number) =>
  reference > 0 ? ours / reference : ours > 0 ? Infinity : 1;

function targetsOf(scenario: QualityScenario, summary: SeedSummary): ScenarioTargets {
  const { ours, before, ratios } = summary;
  const favouriteBar = scenario.numPlayersPerTeam <= 2 ? 0.52 : 0.51;
  return {
    waitsNoWorse:
      ours.meanWait <= before.meanWait + 0.005 &&
      ours.p95Wait <= before.p95Wait + 1e-9 &&
      ours.maxWait <= before.maxWait + 1e-9 &&
      ours.shareMatched >= before.shareMatched - 0.0005,
    spreadWithin125PercentOfReference: ratios.spread <= 1.25,
    imbalanceWithin150PercentOfReference: ratios.imbalance <= 1.5,
    favouriteAtMost: ours.favourite <= favouriteBar,
  };
}

/**
 * A target scenario over `TARGET_SEEDS` streams: ours on each, the reference on the first
 * `REFERENCE_SEEDS`; `first` is the recorded seed's, already run.
 */
function summaryOverSeeds(
  scenario: QualityScenario,
  first: { ours: QualityFigures; reference: QualityFigures },
  movesPerUnit: number | undefined,
): SeedSummary | undefined {
  const before = WAITS_BEFORE_ISSUE_26[scenario.name];
  if (!scenario.target || before === undefined) return undefined;
  const ours = [first.ours];
  const references = [first.reference];
  for (let k = 1; k < TARGET_SEEDS; k++) {
    const seeded = { ...scenario, seed: scenario.seed + 100 * k };
    const stream = generateStream(seeded);
    const online = replay(seeded, stream, arenaStrategy());
    ours.push(qualityFigures(stream, online));
    if (k < REFERENCE_SEEDS) {
      const options = movesPerUnit === undefined ? {} : { movesPerUnit };
      references.push(
        qualityFigures(stream, offlineReference(stream, online, scenario.numPlayersPerTeam, options)),
      );
    }
  }
  const paired = ours.slice(0, references.length);
  const sum = (figures: QualityFigures[], pick: (f: QualityFigures) => number) =>
    figures.reduce((s, f) => s + pick(f), 0);
  return {
    seeds: ours.length,
    referenceSeeds: references.length,
    ours: meanFigures(ours),
    reference: meanFigures(references),
    ratios: {
      spread: ratio(
        sum(paired, (f) => f.spread),
        sum(references, (f) => f.spread),
      ),
      imbalance: ratio(
        sum(paired, (f) => f.imbalance),
        sum(references, (f) => f.imbalance),
      ),
      favouriteExcess: ratio(
        sum(paired, (f) => f.favourite - 0.5),
        sum(references, (f) => f.favourite - 0.5),
      ),
    },
    before,
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
  const overSeeds = summaryOverSeeds(scenario, { ours, reference }, movesPerUnit);
  return {
    scenario,
    arrivals: stream.tickets.length,
    strategies,
    reference,
    spreadBound,
    ratios,
    ...(overSeeds === undefined ? {} : { overSeeds, targets: targetsOf(scenario, overSeeds) }),
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
  if (s.targets === undefined || s.overSeeds === undefined) return "";
  const { seeds, referenceSeeds, ours, reference, ratios, before } = s.overSeeds;
  const quality = (f: QualityFigures) =>
    `${f.spread.toFixed(1)} / ${f.imbalance.toFixed(1)} / ${pct2(f.favourite)}`;
  const waits = (w: SeedSummary["before"]) =>
    `${w.meanWait.toFixed(2)} / ${w.p95Wait.toFixed(2)} / ${w.maxWait.toFixed(2)} s, ${pct2(w.shareMatched)}`;
  const failed = Object.entries(s.targets)
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  return [
    `Over ${seeds} streams (seeds ${s.scenario.seed} + 100 · k; the reference on the first ${referenceSeeds}), means:`,
    `ours ${quality(ours)}, reference ${quality(reference)}, ours / reference ×${ratios.spread.toFixed(2)} / ×${ratios.imbalance.toFixed(2)};`,
    `waits ${waits(ours)} against ${waits(before)} before issue 26.`,
    failed.length === 0 ? "Issue 26 targets: all met." : `Issue 26 targets missed: ${failed.join(", ")}.`,
  ].join(" ");
}

const pct2 = (x: number) => `${(100 * x).toFixed(2)} %`;

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
