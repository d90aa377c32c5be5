import type { FirstRequestCase } from "./matchmaker-first-request.js";
import { FIGURE_HEADER, type QualityReport, scenarioRows, targetLine } from "./matchmaker-quality.js";
import type { ExplainCase, ShapeCase } from "./matchmaker-shapes.js";
import type { SpeedCase } from "./matchmaker-speed.js";
import type { StatsBenchReport } from "./stats-benchmark.js";

export interface BenchReport {
  generatedAt: string;
  machine: { node: string; cpus: number };
  matchmakerSpeed: SpeedCase[];
  growth: Array<{ mode: string; factor10kTo100k: number; nLogNFactor: number }>;
  memory: { matchmakerPeakRssMiB: number; echoPeakRssMiB: number };
  shapes: ShapeCase[];
  explain: ExplainCase[];
  firstRequest: FirstRequestCase[];
  quality: unknown;
  /** The stats service's part (BENCH_ONLY=stats runs it alone). */
  stats?: StatsBenchReport;
}

const table = (header: string[], rows: string[][]) =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");

/** The figures as Markdown, written beside latest.json so the README quotes a generated file. */
export function markdownReport(report: BenchReport): string {
  return [
    `Measured ${report.generatedAt.slice(0, 10)} on ${report.machine.cpus} cores, Node ${report.machine.node}.`,
    "",
    "**Speed**: median wall time of one request over HTTP, interleaved with a bare echo server that only parses the same body and serializes the tickets back (the floor any HTTP matchmaker pays). The ratio is the median of the per-run ratios (each matchmaker request against the echo request just before it).",
    "",
    speedTable(report.matchmakerSpeed),
    "",
    `Growth: ${growthLine(report.growth)}. Peak RSS: matchmaker ${report.memory.matchmakerPeakRssMiB} MiB, echo ${report.memory.echoPeakRssMiB} MiB.`,
    "",
    "**Match size**: one request of 100k tickets per shape, up to the largest match the default `MAX_MATCH_PLAYERS` (1000) allows; the last row is a refused oversized mode.",
    "",
    shapesTable(report.shapes),
    "",
    "**Explain**: the same queue with and without `explain`, interleaved.",
    "",
    explainTable(report.explain),
    "",
    "**First request**: a freshly started matchmaker (warm-up included) is sent a request as soon as `/readyz` answers 200, then the same request until the time is steady; several fresh starts, the medians of their times and ratios.",
    "",
    firstRequestTable(report.firstRequest),
    "",
    "**Quality**: arrival streams replayed second by second through `findMatches` in process and two baselines, against an offline reference that knows every arrival and is held to our waits (see apps/matchmaker/ALGORITHM.md §8). Spread and imbalance are means per match; favourite is the stronger team's Elo expected score.",
    "",
    qualitySection(report.quality as QualityReport),
    "",
    ...(report.stats ? [statsSection(report.stats)] : []),
  ].join("\n");
}

function speedTable(cases: SpeedCase[]): string {
  return table(
    ["mode", "tickets", "request", "echo floor (median)", "matchmaker (median)", "ratio", "matched"],
    cases.map((c) => [
      c.mode,
      c.tickets.toLocaleString("en"),
      `${c.requestMiB} MiB`,
      `${c.echoMedianMs} ms`,
      `${c.matchmakerMedianMs} ms`,
      `×${c.ratio}`,
      `${(c.matchedShare * 100).toFixed(1)} %`,
    ]),
  );
}

function growthLine(growth: BenchReport["growth"]): string {
  return growth
    .map(
      (g) => `${g.mode} ×${g.factor10kTo100k} from 10k to 100k tickets (n log n would be ×${g.nLogNFactor})`,
    )
    .join("; ");
}

function shapesTable(cases: ShapeCase[]): string {
  return table(
    ["match (teams × players)", "players", "tickets", "median", "slowest", "status"],
    cases.map((c) => [
      c.shape,
      String(c.players),
      c.tickets.toLocaleString("en"),
      `${c.medianMs} ms`,
      `${c.maxMs} ms`,
      String(c.status),
    ]),
  );
}

function explainTable(cases: ExplainCase[]): string {
  return table(
    ["mode", "tickets", "plain (median)", "explain (median)", "ratio", "unmatched explained"],
    cases.map((c) => [
      c.mode,
      c.tickets.toLocaleString("en"),
      `${c.plainMedianMs} ms`,
      `${c.explainMedianMs} ms`,
      `×${c.ratio}`,
      c.unmatched.toLocaleString("en"),
    ]),
  );
}

function firstRequestTable(cases: FirstRequestCase[]): string {
  return table(
    ["mode", "tickets", "first request after /readyz", "steady (median)", "ratio", "every start"],
    cases.map((c) => [
      c.mode,
      c.tickets.toLocaleString("en"),
      `${c.firstMs} ms`,
      `${c.steadyMedianMs} ms`,
      `×${c.ratio}`,
      (c.ratios ?? [c.ratio]).map((r) => `×${r}`).join(", "),
    ]),
  );
}

/** One table per replayed scenario: the strategies, the offline reference and ours / reference. */
function qualitySection(quality: QualityReport): string {
  return quality.scenarios
    .map((s) => {
      const note = targetLine(s);
      return `**${s.scenario.name}** (${s.arrivals} arrivals)\n\n${table(["strategy", ...FIGURE_HEADER], scenarioRows(s))}${note === "" ? "" : `\n\n${note}`}`;
    })
    .join("\n\n");
}

function statsSection(stats: StatsBenchReport): string {
  const reads = table(
    [
      "board",
      "variant",
      "stats API",
      "p99",
      "share of floor",
      "redis-rank (in process)",
      "p99",
      "HTTP floor",
      "p99",
    ],
    stats.reads.map((r) => [
      r.boardSize.toLocaleString("en"),
      r.variant,
      `${r.stats.requestsPerSecond}/s`,
      `${r.stats.p99Ms} ms`,
      `${Math.round(r.shareOfFloor * 100)} %`,
      `${r.redisRank.requestsPerSecond}/s`,
      `${r.redisRank.p99Ms} ms`,
      `${r.floor.requestsPerSecond}/s`,
      `${r.floor.p99Ms} ms`,
    ]),
  );
  const completions = table(
    ["mode", "matches", "completions", "p50", "p99", "errors"],
    stats.completions.map((c) => [
      c.mode,
      c.matches.toLocaleString("en"),
      `${c.result.requestsPerSecond}/s`,
      `${c.result.p50Ms} ms`,
      `${c.result.p99Ms} ms`,
      String(c.result.errors),
    ]),
  );
  const rebuild = stats.rebuild
    .map(
      (r) =>
        `${r.boardSize.toLocaleString("en")} entries in ${r.rebuildSeconds} s (first read ${r.firstReadSeconds} s)`,
    )
    .join("; ");
  return [
    `**Stats service** (${stats.connections} connections, autocannon; every read answers 100 entries, around-player 50 on each side). The HTTP floor is \`POST /ping\` of bench/src/stats-floor.ts, stats' stack (service kit, token check, body limit) with no storage, sent the same headers and body (authenticated, body parsed, constant answer); redis-rank runs the same reads on the same Redis keys from the benchmark process.`,
    "",
    reads,
    "",
    "Match completions (distinct confirmed matches, no shared players):",
    "",
    completions,
    "",
    `Leaderboard rebuild from PostgreSQL (Redis empty, triggered by the first read): ${rebuild}.`,
    "",
  ].join("\n");
}
