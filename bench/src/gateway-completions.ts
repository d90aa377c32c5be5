import pg from "pg";
import { ascending, percentileOfSorted, round } from "./http-timing.js";
import type { Service } from "./processes.js";
import { cpuSeconds } from "./prometheus-text.js";
import { StatsSeeder, seededCompletion, seededMatchId } from "./stats-seed.js";

/** Completions in flight at once, as a busy game-server fleet sends them. */
const CONCURRENCY = 16;
/** The rate the gateway and stats must sustain together on the benchmark machine (2 cores). */
export const GATEWAY_COMPLETIONS_TARGET = 500;

/** Match completions sent through the gateway, each for a distinct match confirmed beforehand. */
export interface GatewayCompletionsReport {
  matches: number;
  concurrency: number;
  completionsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  errors: number;
  errorSamples: string[];
  /** CPU per completion, in ms: the gateway, stats, and the stats database's backends. */
  cpuMsPerCompletion: { gateway: number; stats: number; postgres: number };
  loadAverage: number[];
  target: number;
}

/**
 * Seeds `matches` confirmed 2v2 matches of distinct players in the game (directly in stats'
 * database), then completes each through the gateway with a game server's token, 16 at a time;
 * times each answer and reads the processes' CPU before and after.
 */
export async function runGatewayCompletions(options: {
  gatewayUrl: string;
  serverToken: string;
  tenantId: string;
  gameId: string;
  statsDatabaseUrl: string;
  services: { gateway: Service; stats: Service };
  matches: number;
}): Promise<GatewayCompletionsReport> {
  const { gatewayUrl, serverToken, tenantId, gameId, statsDatabaseUrl, services, matches } = options;
  // A prefix whose first character no other seeding of this database uses (see seededMatchId).
  const prefix = "z";
  const seeder = await StatsSeeder.connect(statsDatabaseUrl);
  try {
    await seeder.matches(tenantId, gameId, prefix, matches, 2, 2);
  } finally {
    await seeder.close();
  }
  const backends = new BackendMeter(statsDatabaseUrl);
  await backends.start();
  const cpuBefore = {
    gateway: cpuSeconds(services.gateway.child.pid!),
    stats: cpuSeconds(services.stats.child.pid!),
  };
  const sampling = setInterval(() => void backends.sample().catch(() => {}), 500);
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < matches) {
      const j = next++;
      const sent = performance.now();
      try {
        const res = await fetch(
          `${gatewayUrl}/games/${gameId}/matches/${seededMatchId(prefix, j)}/statuses/completed`,
          {
            method: "POST",
            headers: { authorization: serverToken, "content-type": "application/json" },
            body: seededCompletion(prefix, j, 2, 2),
          },
        );
        await res.arrayBuffer();
        if (!res.ok) errors.set(`HTTP ${res.status}`, (errors.get(`HTTP ${res.status}`) ?? 0) + 1);
      } catch (err) {
        const what = (err as Error).message;
        errors.set(what, (errors.get(what) ?? 0) + 1);
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampling);
  const postgresCpu = await backends.finish();
  const perCompletion = (cpu: number) => round((cpu * 1000) / matches, 3);
  const sorted = ascending(latencies);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  return {
    matches,
    concurrency: CONCURRENCY,
    completionsPerSecond: Math.round(matches / seconds),
    p50Ms: Math.round(percentileOfSorted(sorted, 50)),
    p95Ms: Math.round(percentileOfSorted(sorted, 95)),
    errors: errorCount,
    errorSamples: [...errors].slice(0, 5).map(([what, n]) => `${n}× ${what}`),
    cpuMsPerCompletion: {
      gateway: perCompletion(cpuSeconds(services.gateway.child.pid!) - cpuBefore.gateway),
      stats: perCompletion(cpuSeconds(services.stats.child.pid!) - cpuBefore.stats),
      postgres: perCompletion(postgresCpu),
    },
    loadAverage: (await import("node:os")).loadavg().map((l) => round(l, 2)),
    target: GATEWAY_COMPLETIONS_TARGET,
  };
}

/**
 * CPU of stats' connections to its database (client backends: autovacuum, busy after the seeding,
 * is left out) from `start()` to `finish()`: sampled every half second,
 * so one that exits (an idle pooled connection closed) keeps what it used until last seen, and
 * one that starts meanwhile counts from zero.
 */
class BackendMeter {
  private readonly client: pg.Client;
  private readonly seen = new Map<number, { first: number; last: number }>();
  private started = false;

  constructor(databaseUrl: string) {
    this.client = new pg.Client({ connectionString: databaseUrl });
  }

  async start(): Promise<void> {
    await this.client.connect();
    await this.sample();
    this.started = true;
  }

  async sample(): Promise<void> {
    const { rows } = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    for (const { pid } of rows) {
      let cpu: number;
      try {
        cpu = cpuSeconds(pid);
      } catch {
        continue; // exited between the query and the read
      }
      const known = this.seen.get(pid);
      if (known) known.last = cpu;
      else this.seen.set(pid, { first: this.started ? 0 : cpu, last: cpu });
    }
  }

  async finish(): Promise<number> {
    await this.sample();
    await this.client.end();
    return [...this.seen.values()].reduce((sum, p) => sum + p.last - p.first, 0);
  }
}

export function gatewayCompletionsMarkdown(r: GatewayCompletionsReport): string {
  const met = r.completionsPerSecond >= r.target && r.errors === 0 ? "met" : "**not met**";
  const errors = r.errorSamples.length > 0 ? ` (${r.errorSamples.join("; ")})` : "";
  return `**Completions through the gateway** (the same platform after the queue run; ${r.matches.toLocaleString("en")} 2v2 matches seeded confirmed, distinct players, each completed once by a game server's token, ${r.concurrency} at a time): **${r.completionsPerSecond}/s** (target ≥ ${r.target}/s: ${met}), p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, ${r.errors} errors${errors}. CPU per completion: gateway ${r.cpuMsPerCompletion.gateway} ms, stats ${r.cpuMsPerCompletion.stats} ms, stats' PostgreSQL backends ${r.cpuMsPerCompletion.postgres} ms. Load average at the end ${r.loadAverage.join(" / ")} on 2 cores.`;
}
