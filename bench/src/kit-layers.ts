import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { type Service, startService, stopService } from "./processes.js";

/**
 * What the service kit's HTTP pipeline costs per request, beside a bare node server: each variant
 * of bench/src/kit-layer-server.ts in its own process under autocannon (16 connections), measured
 * as the server's CPU time per answered request (/proc/<pid>/stat), which other load on a shared
 * machine changes far less than throughput. `node dist/kit-layers.js [variant…]`; rounds
 * interleave the variants, and the median of each is reported.
 */
const CONNECTIONS = 16;
const SECONDS = Number(process.env.KIT_LAYERS_SECONDS ?? 5);
const ROUNDS = Number(process.env.KIT_LAYERS_ROUNDS ?? 3);
const PORT = 18095;
const CLOCK_TICKS_PER_SECOND = 100;

export interface VariantFigures {
  variant: string;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
}

/** User plus system CPU time of a process so far, in µs (fields 14 and 15 of /proc/<pid>/stat). */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1e6;
}

async function measureOnce(script: string, variant: string): Promise<VariantFigures> {
  const service: Service = await startService(variant, script, PORT, { KIT_VARIANT: variant }, "/seasons");
  try {
    const url = `${service.url}/seasons`;
    await autocannon({ url, connections: CONNECTIONS, duration: 2 });
    const pid = service.child.pid as number;
    const before = cpuMicros(pid);
    const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
    const cpu = cpuMicros(pid) - before;
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${variant}: ${result.non2xx} non-2xx answers`);
    return {
      variant,
      requestsPerSecond: Math.round(result.requests.average),
      cpuMicrosPerRequest: Math.round((cpu / result.requests.total) * 10) / 10,
    };
  } finally {
    await stopService(service);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

export async function runKitLayers(root: string, variants: string[]): Promise<VariantFigures[]> {
  const script = join(root, "bench", "dist", "kit-layer-server.js");
  const runs = new Map<string, VariantFigures[]>(variants.map((v) => [v, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) {
      const figures = await measureOnce(script, variant);
      console.log(
        `  round ${round + 1} ${variant}: ${figures.requestsPerSecond}/s, ${figures.cpuMicrosPerRequest} µs CPU`,
      );
      runs.get(variant)?.push(figures);
    }
  }
  return variants.map((variant) => {
    const all = runs.get(variant) ?? [];
    return {
      variant,
      requestsPerSecond: median(all.map((f) => f.requestsPerSecond)),
      cpuMicrosPerRequest: median(all.map((f) => f.cpuMicrosPerRequest)),
    };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const variants = process.argv.slice(2);
  const figures = await runKitLayers(root, variants.length > 0 ? variants : ["bare", "express", "kit"]);
  const bare = figures.find((f) => f.variant === "bare");
  console.log("| variant | req/s | CPU µs/request | share of bare (req/s) |\n|---|---|---|---|");
  for (const f of figures) {
    const share = bare ? `${((f.requestsPerSecond / bare.requestsPerSecond) * 100).toFixed(1)} %` : "";
    console.log(
      `| ${f.variant} | ${f.requestsPerSecond.toLocaleString("en")} | ${f.cpuMicrosPerRequest} | ${share} |`,
    );
  }
}
