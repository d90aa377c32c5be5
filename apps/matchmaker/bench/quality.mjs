// Quality benchmark CLI: replays seeded queues through findMatches and two baselines, prints a table
// and writes bench/results/quality.json. Runs the compiled code, so build first:
//   pnpm --filter @arena/matchmaker build && node apps/matchmaker/bench/quality.mjs
import { mkdir, writeFile } from "node:fs/promises";
import { formatQualityReport, runQualityBenchmark } from "../dist/matching/quality-benchmark.js";

const report = await runQualityBenchmark();
console.log(formatQualityReport(report));
const out = new URL("./results/quality.json", import.meta.url);
await mkdir(new URL("./", out), { recursive: true });
await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`written ${out.pathname}`);
