import autocannon from "autocannon";
import { round } from "./http-timing.js";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

export const CONNECTIONS = 32;

/**
 * `autocannon` with 32 connections against one route; each request's body comes from `body(i)`
 * (i counts requests), so reads can walk random ranks and completions distinct matches.
 */
export async function loadTest(options: {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  /** Per request (i counts them): its path and body, when they vary. */
  request?: (i: number) => { path?: string; body?: string };
  durationSeconds?: number;
  amount?: number;
}): Promise<LoadResult> {
  let i = 0;
  const result = await autocannon({
    url: options.url,
    method: options.method,
    connections: CONNECTIONS,
    ...(options.amount === undefined
      ? { duration: options.durationSeconds ?? 8 }
      : { amount: options.amount }),
    headers: { "content-type": "application/json", ...options.headers },
    requests: [
      {
        setupRequest: (req) => (options.request ? { ...req, ...options.request(i++) } : req),
      },
    ],
  });
  return {
    // Total over elapsed time: right for fixed amounts too (the average skips partial seconds).
    requestsPerSecond: round(result.requests.total / result.duration, 0),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** The same measurement for an in-process client (redis-rank): `concurrency` calls in flight. */
export async function loadInProcess(
  call: (i: number) => Promise<unknown>,
  durationSeconds = 8,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const end = process.hrtime.bigint() + BigInt(durationSeconds * 1e9);
  const worker = async () => {
    while (process.hrtime.bigint() < end) {
      const started = process.hrtime.bigint();
      try {
        await call(i++);
      } catch {
        errors++;
      }
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    requestsPerSecond: round(latencies.length / durationSeconds, 0),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    requests: latencies.length,
    errors,
  };
}
