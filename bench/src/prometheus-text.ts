import { readFileSync } from "node:fs";

/** One sample of a Prometheus text exposition: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a `/metrics` answer (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

export async function scrape(url: string): Promise<Sample[]> {
  return parseMetrics(await (await fetch(`${url}/metrics`)).text());
}

/** The sum of the samples of `name` whose labels include `where`. */
export function total(samples: readonly Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * A histogram's growth between two scrapes: count, mean and the bucket bound holding the p95
 * (null when the p95 is above the largest bucket).
 */
export function histogramDelta(
  before: readonly Sample[],
  after: readonly Sample[],
  name: string,
  where: Record<string, string> = {},
): { count: number; meanMs: number; p95UpToMs: number | null } {
  const delta = (suffix: string, extra: Record<string, string> = {}) =>
    total(after, name + suffix, { ...where, ...extra }) -
    total(before, name + suffix, { ...where, ...extra });
  const count = delta("_count");
  const bounds = [
    ...new Set(after.filter((s) => s.name === `${name}_bucket`).map((s) => s.labels.le!)),
  ].filter((le) => le !== "+Inf");
  bounds.sort((a, b) => Number(a) - Number(b));
  const p95 = bounds.find((le) => delta("_bucket", { le }) >= 0.95 * count);
  return {
    count,
    meanMs: count === 0 ? 0 : Math.round((delta("_sum") / count) * 1e4) / 10,
    p95UpToMs: p95 === undefined ? null : Number(p95) * 1000,
  };
}

/** CPU seconds a process has used so far (user + system), from /proc. Linux only. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** The machine's busy and total CPU seconds so far, from /proc/stat. */
export function machineCpuSeconds(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const values = ticks.map(Number);
  const all = values.reduce((a, b) => a + b, 0);
  const idle = values[3]! + values[4]!; // idle, iowait
  return { busy: (all - idle) / 100, total: all / 100 };
}
