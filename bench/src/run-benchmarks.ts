import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startApp } from "./bench-platform.js";
import { type PoolingBenchReport, poolingMarkdown, runPoolingBenchmark } from "./database-pooling.js";
import { type GatewayProxyReport, gatewayProxyMarkdown, runGatewayProxyBenchmark } from "./gateway-proxy.js";
import { type HostedQueueReport, hostedQueueMarkdown, runHostedQueueBenchmark } from "./hosted-queue.js";
import { type HotPathsReport, hotPathsMarkdown, runHotPathsBenchmark } from "./hot-paths.js";
import { round } from "./http-timing.js";
import { NODE_FLAGS, startLicensedMatchmaker } from "./licensed-matchmaker.js";
import { type BenchReport, markdownReport } from "./markdown-report.js";
import {
  type FirstRequestCase,
  runFirstRequestBenchmark,
  summariseStarts,
} from "./matchmaker-first-request.js";
import { formatQualityReport, runQualityBenchmark } from "./matchmaker-quality.js";
import {
  type ExplainCase,
  runExplainBenchmark,
  runShapeBenchmark,
  type ShapeCase,
} from "./matchmaker-shapes.js";
import { runSpeedBenchmark } from "./matchmaker-speed.js";
import { peakRssMiB, type Service, startService, stopService } from "./processes.js";
import { queueTopologiesMarkdown, runQueueTopologies, type TopologyFigures } from "./queue-topologies.js";
import { runStatsBenchmark } from "./stats-benchmark.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const resultsFile = join(root, "bench", "results", "latest.json");
/** The whole report: the matchmaker's part, and the gateway's and the stats service's sections. */
type FullReport = BenchReport & {
  gatewayProxy?: GatewayProxyReport;
  hostedQueue?: HostedQueueReport;
  pooling?: PoolingBenchReport;
  queueTopologies?: TopologyFigures[];
  hotPaths?: HotPathsReport;
};
type MatchmakerPart = Pick<
  BenchReport,
  "matchmakerSpeed" | "growth" | "memory" | "shapes" | "explain" | "firstRequest" | "quality"
>;
const PARTS = [
  "matchmaker",
  "quality",
  "gateway",
  "stats",
  "queue",
  "pooling",
  "topologies",
  "hotpaths",
] as const;

function writeReport(report: FullReport): void {
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  const gateway = report.gatewayProxy ? `\n${gatewayProxyMarkdown(report.gatewayProxy)}` : "";
  const queue = report.hostedQueue ? `\n${hostedQueueMarkdown(report.hostedQueue)}` : "";
  const pooling = report.pooling ? poolingMarkdown(report.pooling) : "";
  const topologies = queueTopologiesMarkdown(report.queueTopologies ?? []);
  const hotPaths = report.hotPaths ? hotPathsMarkdown(report.hotPaths) : "";
  writeFileSync(
    resultsFile.replace(/\.json$/, ".md"),
    markdownReport(report) + gateway + queue + pooling + topologies + hotPaths,
  );
}

async function runGatewaySection(): Promise<GatewayProxyReport> {
  console.log("\nGateway proxy (authenticated proxying through the gateway vs calling stats directly):");
  const gatewayProxy = await runGatewayProxyBenchmark(root);
  console.table({
    direct: gatewayProxy.direct,
    expressFloor: gatewayProxy.expressFloor,
    gateway: gatewayProxy.gateway,
  });
  console.log(gatewayProxyMarkdown(gatewayProxy));
  return gatewayProxy;
}

/**
 * `pnpm bench` runs every part; `BENCH_ONLY=matchmaker|quality|gateway|stats|queue|pooling|topologies|hotpaths` runs one,
 * keeping the other parts' figures from the previous report, so latest.json and latest.md always hold
 * them all. The matchmaker part includes its quality benchmark; `quality` runs only that (in process,
 * no services).
 */
async function main(): Promise<void> {
  const started = new Date();
  const only = process.env.BENCH_ONLY;
  if (only !== undefined && !(PARTS as readonly string[]).includes(only)) {
    throw new Error(`BENCH_ONLY must be one of ${PARTS.join(", ")}`);
  }
  const runs = (part: (typeof PARTS)[number]) => only === undefined || only === part;
  const previous: Partial<FullReport> = existsSync(resultsFile)
    ? (JSON.parse(readFileSync(resultsFile, "utf8")) as Partial<FullReport>)
    : {};
  let matchmaker: Partial<MatchmakerPart> = runs("matchmaker") ? await runMatchmakerPart() : previous;
  if (only === "quality") {
    console.log("Quality (queue replayed second by second):");
    const quality = await runQuality();
    console.log(quality.text);
    matchmaker = { ...previous, quality: quality.report };
  }
  const gatewayProxy = runs("gateway") ? await runGatewaySection() : previous.gatewayProxy;
  let stats = previous.stats;
  if (runs("stats")) {
    console.log("\nStats service (leaderboard reads, completions, rebuild):");
    stats = await runStatsBenchmark(root);
  }
  let hostedQueue = previous.hostedQueue;
  if (runs("queue")) {
    console.log("\nHosted queue (game servers over REST and WebSocket through the gateway):");
    hostedQueue = await runHostedQueueBenchmark(root);
  }
  let pooling = previous.pooling;
  if (runs("pooling")) {
    console.log("\nStats behind PgBouncer (direct, session pooling, transaction pooling):");
    pooling = await runPoolingBenchmark(root);
  }
  let queueTopologies = previous.queueTopologies;
  if (runs("topologies")) {
    console.log("\nHosted queue by topology (single nodes, PgBouncer, Redis Cluster):");
    queueTopologies = await runQueueTopologies(root);
    console.log(queueTopologiesMarkdown(queueTopologies));
  }
  let hotPaths = previous.hotPaths;
  if (runs("hotpaths")) {
    console.log("\nHosted hot paths (leaderboard reads through the gateway, cache off and on):");
    hotPaths = await runHotPathsBenchmark(root);
    console.log(hotPathsMarkdown(hotPaths));
  }
  if (!matchmaker.matchmakerSpeed)
    throw new Error("no matchmaker figures: run the whole benchmark once first");
  writeReport({
    generatedAt: started.toISOString(),
    machine: { node: process.version, cpus: (await import("node:os")).cpus().length },
    matchmakerSpeed: matchmaker.matchmakerSpeed,
    growth: matchmaker.growth ?? [],
    memory: matchmaker.memory ?? { matchmakerPeakRssMiB: 0, echoPeakRssMiB: 0 },
    shapes: matchmaker.shapes ?? [],
    explain: matchmaker.explain ?? [],
    firstRequest: matchmaker.firstRequest ?? [],
    quality: matchmaker.quality,
    ...(gatewayProxy === undefined ? {} : { gatewayProxy }),
    ...(stats === undefined ? {} : { stats }),
    ...(hostedQueue === undefined ? {} : { hostedQueue }),
    ...(pooling === undefined ? {} : { pooling }),
    ...(queueTopologies === undefined ? {} : { queueTopologies }),
    ...(hotPaths === undefined ? {} : { hotPaths }),
  });
  console.log(`\nWritten to ${resultsFile}`);
}

async function runMatchmakerPart(): Promise<MatchmakerPart> {
  console.log("Matchmaker speed (median wall time per request over HTTP, same body to both):");
  const services: Service[] = [];
  let speed: Awaited<ReturnType<typeof runSpeedBenchmark>>;
  let memory: { matchmakerPeakRssMiB: number; echoPeakRssMiB: number };
  let shapes: ShapeCase[];
  let explain: ExplainCase[];
  let firstRequest: FirstRequestCase[];
  try {
    const { matchmaker, wiring } = await startLicensedMatchmaker(root, services);
    const echo = await startService(
      "echo",
      join(root, "bench", "dist", "echo-server.js"),
      18090,
      {},
      "/livez",
    );
    services.push(echo);
    speed = await runSpeedBenchmark(echo.url, matchmaker.url);
    memory = {
      matchmakerPeakRssMiB: peakRssMiB(matchmaker.child.pid!),
      echoPeakRssMiB: peakRssMiB(echo.child.pid!),
    };
    console.log("\nMatch shapes at 100k tickets (the cost of large matches):");
    shapes = await runShapeBenchmark(matchmaker.url);
    console.log("\nExplain (?explain=true) against the plain answer:");
    explain = await runExplainBenchmark(matchmaker.url);
    const starts = Number(process.env.BENCH_FIRST_REQUEST_STARTS ?? 5);
    console.log(`\nFirst request after /readyz on a fresh process (${starts} starts):`);
    const samples: FirstRequestCase[][] = [];
    for (let i = 0; i < starts; i++) {
      const fresh = await startApp(
        root,
        "matchmaker",
        { ...wiring, ports: { ...wiring.ports, matchmaker: wiring.ports.matchmaker! + 1 + i } },
        { flags: NODE_FLAGS, label: "matchmaker (fresh)" },
      );
      try {
        samples.push(await runFirstRequestBenchmark(fresh.url));
      } finally {
        await stopService(fresh);
      }
    }
    firstRequest = summariseStarts(samples);
  } finally {
    await Promise.all(services.map(stopService));
  }

  const byMode = (mode: string, tickets: number) =>
    speed.find((c) => c.mode === mode && c.tickets === tickets)!;
  const growth = ["2v2", "5v5"].map((mode) => {
    const t10k = byMode(mode, 10_000).matchmakerMedianMs;
    const t100k = byMode(mode, 100_000).matchmakerMedianMs;
    // n log n from 10k to 100k is a factor of 10 × log(1e5)/log(1e4) = 12.5.
    return { mode, factor10kTo100k: round(t100k / t10k), nLogNFactor: 12.5 };
  });

  console.log("\nQuality (queue replayed second by second):");
  const quality = await runQuality();
  console.log(quality.text);

  console.log("\nSpeed:");
  console.table(speed);
  console.log("Growth 10k → 100k (n log n = ×12.5):");
  console.table(growth);
  console.table(shapes);
  console.table(explain);
  console.table(firstRequest);
  console.log(`Peak RSS: matchmaker ${memory.matchmakerPeakRssMiB} MiB, echo ${memory.echoPeakRssMiB} MiB`);
  return { matchmakerSpeed: speed, growth, memory, shapes, explain, firstRequest, quality: quality.report };
}

async function runQuality(): Promise<{ report: unknown; text: string }> {
  const report = await runQualityBenchmark();
  return { report, text: formatQualityReport(report) };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
