import { loadavg } from "node:os";
import { type QueueTopology, runHostedQueueBenchmark, SINGLE_NODE } from "./hosted-queue.js";

/**
 * The hosted queue benchmark on each topology a studio grows into, at the same offered load, one
 * after the other on the same machine: today's single nodes, PostgreSQL behind PgBouncer's
 * transaction pooling, and a Redis Cluster (3 masters, 3 replicas, all on this machine's cores).
 */
export const TOPOLOGIES: readonly QueueTopology[] = [
  SINGLE_NODE,
  { name: "PgBouncer (transaction pooling), one Redis", database: "pgbouncer", redis: "single" },
  { name: "one PostgreSQL, Redis Cluster (3+3)", database: "direct", redis: "cluster" },
  { name: "PgBouncer and Redis Cluster", database: "pgbouncer", redis: "cluster" },
];

export interface TopologyFigures {
  topology: string;
  seconds: number;
  offeredPerSecond: number;
  acceptedPerSecond: number;
  p95SubmitToSuggestionMs: number;
  completionsPerSecond: number;
  errors: number;
  playersInTwoMatches: number;
  /** CPU per player of stats, the gateway, and PostgreSQL's backends, in ms. */
  cpuMsPerPlayer: { stats: number; gateway: number; postgres: number };
  loadAverageAtStart: number;
}

/** Runs the hosted queue on every topology (BENCH_QUEUE_SECONDS each, 30 s unless set). */
export async function runQueueTopologies(root: string): Promise<TopologyFigures[]> {
  process.env.BENCH_QUEUE_SECONDS ??= "30";
  const figures: TopologyFigures[] = [];
  // Between two runs nothing of ours may hold the event loop (the test cluster's redis-servers are
  // unref'd child processes): without this, Node would exit mid-await, silently, with status 0.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    for (const topology of TOPOLOGIES) figures.push(await runTopology(root, topology));
  } finally {
    clearInterval(keepAlive);
  }
  return figures;
}

async function runTopology(root: string, topology: QueueTopology): Promise<TopologyFigures> {
  console.log(`\nHosted queue on: ${topology.name}`);
  const loadAverageAtStart = loadavg()[0]!;
  const report = await runHostedQueueBenchmark(root, topology);
  const cpu = (app: string) =>
    report.resources?.apps.find((a) => a.app === app)?.cpuMsPerPlayer ?? Number.NaN;
  return {
    topology: topology.name,
    seconds: report.seconds,
    offeredPerSecond: report.pacing.offeredPerSecond,
    acceptedPerSecond: report.players.acceptedPerSecond,
    p95SubmitToSuggestionMs: report.submitToSuggestion.p95Ms,
    completionsPerSecond: report.matches.completionsPerSecond,
    errors: report.errors.count,
    playersInTwoMatches: report.playersInTwoMatches.seenByServers + report.playersInTwoMatches.inDatabase,
    cpuMsPerPlayer: {
      stats: cpu("stats"),
      gateway: cpu("gateway"),
      postgres: report.resources?.postgres.perPlayer.backendCpuMs ?? Number.NaN,
    },
    loadAverageAtStart: Math.round(loadAverageAtStart * 10) / 10,
  };
}

export function queueTopologiesMarkdown(figures: readonly TopologyFigures[]): string {
  if (figures.length === 0) return "";
  const rows = figures.map(
    (f) =>
      `| ${f.topology} | ${f.acceptedPerSecond.toLocaleString("en-US")}/s of ${f.offeredPerSecond.toLocaleString("en-US")}/s | ${f.p95SubmitToSuggestionMs} ms | ${f.completionsPerSecond}/s | ${f.errors} | ${f.playersInTwoMatches} | ${f.cpuMsPerPlayer.stats} / ${f.cpuMsPerPlayer.gateway} / ${f.cpuMsPerPlayer.postgres} ms | ${f.loadAverageAtStart} |`,
  );
  return [
    "",
    `**Hosted queue by topology** (BENCH_ONLY=topologies; the hosted queue benchmark above, ${figures[0]!.seconds} s of load per topology, one after the other on the same 2 cores; the cluster's six redis-servers and PgBouncer run on those cores too, so this measures what each layer costs here, not what it adds across machines):`,
    "",
    "| topology | players accepted | p95 submit → suggestion | completions | errors | players in two matches | CPU per player: stats / gateway / PostgreSQL | load average at start |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
