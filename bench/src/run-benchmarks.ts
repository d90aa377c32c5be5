import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrateDatabase } from "@arena/database";
import { round } from "./http-timing.js";
import { type BenchReport, markdownReport } from "./markdown-report.js";
import { runSpeedBenchmark } from "./matchmaker-speed.js";
import { peakRssMiB, type Service, startService, stopService } from "./processes.js";
import { runStatsBenchmark } from "./stats-benchmark.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const resultsFile = join(root, "bench", "results", "latest.json");
const ADMIN_TOKEN = "bench-admin-token-0123456789";
/** The matchmaker's production V8 flags (its Dockerfile and start script); the echo gets the same. */
const NODE_FLAGS = ["--max-semi-space-size=64"];

/** Starts the real license service and a licensed matchmaker; `started` collects them for cleanup. */
async function startLicensedMatchmaker(started: Service[]): Promise<Service[]> {
  const licenseDir = join(root, "apps", "license");
  const databaseUrl =
    process.env.BENCH_LICENSE_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/arena_bench_license";
  await migrateDatabase({
    databaseUrl,
    schemaPath: join(licenseDir, "prisma", "schema.prisma"),
    migrationsDir: join(licenseDir, "prisma", "migrations"),
  });
  const license = await startService("license", join(licenseDir, "dist", "main.js"), 18082, {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    SIGNING_KEY_SECRET: "bench-signing-key-secret-0123456789abcdef",
    MAIL_DIR: join(root, ".dev", "bench-mail"),
  });
  started.push(license);
  const created = await fetch(`${license.url}/admin/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ name: "Benchmark", email: "bench@arena.localhost", edition: "advanced" }),
  });
  if (created.status !== 201)
    throw new Error(`could not create a license: ${created.status} ${await created.text()}`);
  const { licenseKey } = (await created.json()) as { licenseKey: string };
  const matchmaker = await startService(
    "matchmaker",
    join(root, "apps", "matchmaker", "dist", "main.js"),
    18000,
    { LICENSE_KEY: licenseKey, LICENSE_URL: license.url },
    "/readyz",
    NODE_FLAGS,
  );
  started.push(matchmaker);
  return [license, matchmaker];
}

/**
 * `BENCH_ONLY=matchmaker` or `BENCH_ONLY=stats` runs one part; the other part's figures are kept
 * from the previous report, so latest.json and latest.md always hold both.
 */
async function main(): Promise<void> {
  const started = new Date();
  const only = process.env.BENCH_ONLY;
  const previous: Partial<BenchReport> = existsSync(resultsFile)
    ? (JSON.parse(readFileSync(resultsFile, "utf8")) as Partial<BenchReport>)
    : {};
  const matchmaker = only === "stats" ? undefined : await runMatchmakerPart();
  let stats = previous.stats;
  if (only !== "matchmaker") {
    console.log("\nStats service (leaderboard reads, completions, rebuild):");
    stats = await runStatsBenchmark(root);
  }
  const base = matchmaker ?? previous;
  if (!base.matchmakerSpeed) throw new Error("no matchmaker figures: run the whole benchmark once first");
  const report: BenchReport = {
    generatedAt: started.toISOString(),
    machine: { node: process.version, cpus: (await import("node:os")).cpus().length },
    matchmakerSpeed: base.matchmakerSpeed,
    growth: base.growth!,
    memory: base.memory!,
    quality: base.quality,
    ...(stats === undefined ? {} : { stats }),
  };
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(resultsFile.replace(/\.json$/, ".md"), markdownReport(report));
  console.log(`\nWritten to ${resultsFile}`);
}

async function runMatchmakerPart(): Promise<
  Pick<BenchReport, "matchmakerSpeed" | "growth" | "memory" | "quality">
> {
  console.log("Matchmaker speed (median wall time per request over HTTP, same body to both):");
  const services: Service[] = [];
  let speed: Awaited<ReturnType<typeof runSpeedBenchmark>>;
  let memory: { matchmakerPeakRssMiB: number; echoPeakRssMiB: number };
  try {
    const [, matchmaker] = await startLicensedMatchmaker(services);
    const echo = await startService(
      "echo",
      join(root, "bench", "dist", "echo-server.js"),
      18090,
      {},
      "/livez",
    );
    services.push(echo);
    speed = await runSpeedBenchmark(echo.url, matchmaker!.url);
    memory = {
      matchmakerPeakRssMiB: peakRssMiB(matchmaker!.child.pid!),
      echoPeakRssMiB: peakRssMiB(echo.child.pid!),
    };
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
  console.log(`Peak RSS: matchmaker ${memory.matchmakerPeakRssMiB} MiB, echo ${memory.echoPeakRssMiB} MiB`);
  return { matchmakerSpeed: speed, growth, memory, quality: quality.report };
}

/** The quality benchmark lives with the algorithm, in the matchmaker's build. */
async function runQuality(): Promise<{ report: unknown; text: string }> {
  const modulePath = join(root, "apps", "matchmaker", "dist", "matching", "quality-benchmark.js");
  const { runQualityBenchmark, formatQualityReport } = (await import(modulePath)) as {
    runQualityBenchmark: () => Promise<unknown>;
    formatQualityReport: (report: unknown) => string;
  };
  const report = await runQualityBenchmark();
  return { report, text: formatQualityReport(report) };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
