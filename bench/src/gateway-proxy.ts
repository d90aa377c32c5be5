import { loadavg } from "node:os";
import { join } from "node:path";
import { migrateDatabase } from "@arena/database";
import autocannon from "autocannon";
import { Pool } from "undici";
import type { PlatformWiring } from "../../scripts/platform-wiring.mjs";
import { BENCH_PORT_OFFSET, BENCH_PORTS, BENCH_SECRETS, startApp } from "./bench-platform.js";
import { createTenant, userToken } from "./gateway-tenant.js";
import { ascending, median, percentileOfSorted } from "./http-timing.js";
import { peakRssMiB, type Service, startService, stopService } from "./processes.js";

/** Autocannon's settings, the same for both targets. */
const LOAD = { connections: 16, pipelining: 1, durationSeconds: 10, warmupSeconds: 3 };
/** Sequential requests per target for the precise (microsecond) latency figures. */
const SEQUENTIAL_REQUESTS = 3000;

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface GatewayProxyReport {
  load: typeof LOAD;
  /** The real stats service called directly with the service token: what the gateway fronts. */
  direct: LoadFigures;
  /** A bare node HTTP server answering a constant: the machine's ceiling, for scale. */
  bareServer: LoadFigures;
  /** The service kit's express pipeline answering the same constant: what any of our apps pays. */
  expressFloor: LoadFigures;
  gateway: LoadFigures;
  /** One request at a time over a kept-alive connection, timed with hrtime. */
  sequential: { directP50Ms: number; directP99Ms: number; gatewayP50Ms: number; gatewayP99Ms: number };
  addedP50Ms: number;
  addedSequentialP50Ms: number;
  throughputShare: number;
  /** The gateway's throughput against the express floor: its own cost, apart from the framework's. */
  throughputShareOfExpressFloor: number;
  /** The express floor's throughput against the bare server's: what the service kit keeps. */
  floorShareOfBare?: number;
  targets: { addedP50Ms: number; throughputShare: number; floorShareOfBare?: number };
  /** The machine's 1-minute load average as the loads ended: what else shared the cores. */
  loadAverage?: number;
  gatewayPeakRssMiB: number;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<LoadFigures> {
  const result = await autocannon({
    url,
    headers,
    connections: LOAD.connections,
    pipelining: LOAD.pipelining,
    duration: seconds,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

async function sequential(origin: string, path: string, headers: Record<string, string>): Promise<number[]> {
  const pool = new Pool(origin, { connections: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < SEQUENTIAL_REQUESTS; i++) {
      const started = process.hrtime.bigint();
      const { statusCode, body } = await pool.request({ method: "GET", path, headers });
      await body.text();
      if (statusCode !== 200) throw new Error(`${origin}${path} answered ${statusCode}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    await pool.close();
  }
  return times.slice(SEQUENTIAL_REQUESTS / 10); // the first tenth warms up
}

/** The processes measured: stats and the gateway, and the two constant-answer servers for scale. */
interface ProxyTargets {
  stats: Service;
  upstream: Service;
  floor: Service;
  gateway: Service;
}

/** The headers of one caller: through the gateway (an IdToken), and as the gateway calls stats. */
interface Callers {
  auth: Record<string, string>;
  service: Record<string, string>;
}

const PATH = "/seasons";

/**
 * Authenticated proxying through the real gateway (token check, role check, the tenant's rate
 * limit, undici to stats) against calling the real stats service directly, in one run; a bare
 * constant-answer server and the service kit's express floor are measured beside them, for scale.
 */
export async function runGatewayProxyBenchmark(root: string): Promise<GatewayProxyReport> {
  const databaseUrls = await migrateDatabases(root);
  const redisPrefix = `arena_bench_${process.pid}:`;
  // Stats and the gateway only: stats runs no matchmaking here.
  const wiring: PlatformWiring = {
    ports: { stats: BENCH_PORTS.stats, gateway: BENCH_PORTS.gateway },
    secrets: BENCH_SECRETS,
    databaseUrls,
    redisKeyPrefix: redisPrefix,
  };
  const services: Service[] = [];
  try {
    const targets = await startTargets(root, wiring, services);
    const callers = await createCallers(targets.gateway.url);
    return await measure(targets, callers);
  } finally {
    await Promise.all(services.map(stopService));
  }
}

/** The gateway's and stats' databases, migrated (they are kept between runs). */
export async function migrateDatabases(root: string): Promise<{ stats: string; gateway: string }> {
  const gatewayDir = join(root, "apps", "gateway");
  const databaseUrl =
    process.env.BENCH_GATEWAY_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/arena_bench_gateway";
  await migrateDatabase({
    databaseUrl,
    schemaPath: join(gatewayDir, "prisma", "schema.prisma"),
    migrationsDir: join(gatewayDir, "prisma", "migrations"),
  });
  const statsDir = join(root, "apps", "stats");
  const statsDatabaseUrl =
    process.env.BENCH_GATEWAY_STATS_DATABASE_URL ??
    "postgresql://postgres@127.0.0.1:5432/arena_bench_gateway_stats";
  await migrateDatabase({
    databaseUrl: statsDatabaseUrl,
    schemaPath: join(statsDir, "prisma", "schema.prisma"),
    migrationsDir: join(statsDir, "prisma", "migrations"),
  });
  return { stats: statsDatabaseUrl, gateway: databaseUrl };
}

/** Starts the four targets in turn, each added to `services` as soon as it runs (to be stopped). */
async function startTargets(
  root: string,
  wiring: PlatformWiring,
  services: Service[],
): Promise<ProxyTargets> {
  const stats = await startApp(root, "stats", wiring);
  services.push(stats);
  const upstream = await startService(
    "upstream",
    join(root, "bench", "dist", "constant-upstream.js"),
    8091 + BENCH_PORT_OFFSET,
    {},
  );
  services.push(upstream);
  const floor = await startService(
    "express-floor",
    join(root, "bench", "dist", "express-floor.js"),
    8093 + BENCH_PORT_OFFSET,
    {},
  );
  services.push(floor);
  const gateway = await startApp(root, "gateway", wiring, {
    // The limit is not what is measured: high enough never to answer 429.
    env: { TENANT_RATE_LIMIT: "1000000000" },
  });
  services.push(gateway);
  return { stats, upstream, floor, gateway };
}

/** A tenant's game server: its IdToken, and what the gateway sends stats for it. */
async function createCallers(gatewayUrl: string): Promise<Callers> {
  const tenant = await createTenant(gatewayUrl);
  const token = await userToken(gatewayUrl, tenant, "server");
  return {
    auth: { authorization: token },
    service: {
      authorization: `Bearer ${BENCH_SECRETS.serviceToken}`,
      "x-arena-tenant": tenant.tenantId,
      "x-arena-role": "server",
    },
  };
}

/** Warm-up, then autocannon on each target, then one request at a time directly and through the gateway. */
async function measure(targets: ProxyTargets, { auth, service }: Callers): Promise<GatewayProxyReport> {
  const { stats, upstream, floor, gateway } = targets;
  console.log(`  warming up (${LOAD.warmupSeconds} s each)…`);
  await load(`${stats.url}${PATH}`, service, LOAD.warmupSeconds);
  await load(`${upstream.url}${PATH}`, {}, LOAD.warmupSeconds);
  await load(`${floor.url}${PATH}`, {}, LOAD.warmupSeconds);
  await load(`${gateway.url}${PATH}`, auth, LOAD.warmupSeconds);
  console.log(`  autocannon, ${LOAD.connections} connections, ${LOAD.durationSeconds} s each…`);
  const direct = await load(`${stats.url}${PATH}`, service, LOAD.durationSeconds);
  const bareServer = await load(`${upstream.url}${PATH}`, {}, LOAD.durationSeconds);
  const expressFloor = await load(`${floor.url}${PATH}`, {}, LOAD.durationSeconds);
  const viaGateway = await load(`${gateway.url}${PATH}`, auth, LOAD.durationSeconds);
  console.log(`  ${SEQUENTIAL_REQUESTS} sequential requests each…`);
  const directTimes = await sequential(stats.url, PATH, service);
  const gatewayTimes = await sequential(gateway.url, PATH, auth);
  const seq = {
    directP50Ms: round3(median(directTimes)),
    directP99Ms: round3(percentileOfSorted(ascending(directTimes), 99)),
    gatewayP50Ms: round3(median(gatewayTimes)),
    gatewayP99Ms: round3(percentileOfSorted(ascending(gatewayTimes), 99)),
  };
  return {
    load: LOAD,
    direct,
    bareServer,
    expressFloor,
    gateway: viaGateway,
    sequential: seq,
    addedP50Ms: round3(viaGateway.p50Ms - direct.p50Ms),
    addedSequentialP50Ms: round3(seq.gatewayP50Ms - seq.directP50Ms),
    throughputShare: round3(viaGateway.requestsPerSecond / direct.requestsPerSecond),
    throughputShareOfExpressFloor: round3(viaGateway.requestsPerSecond / expressFloor.requestsPerSecond),
    floorShareOfBare: round3(expressFloor.requestsPerSecond / bareServer.requestsPerSecond),
    targets: { addedP50Ms: 1, throughputShare: 0.7, floorShareOfBare: 0.4 },
    gatewayPeakRssMiB: peakRssMiB(gateway.child.pid!),
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** The figures as Markdown, for bench/results/latest.md. */
export function gatewayProxyMarkdown(report: GatewayProxyReport): string {
  const row = (name: string, f: LoadFigures) =>
    `| ${name} | ${f.requestsPerSecond.toLocaleString("en")} | ${f.p50Ms} ms | ${f.p99Ms} ms | ${f.errors + f.non2xx} |`;
  const s = report.sequential;
  return [
    `**Gateway proxy**: \`GET /seasons\` with an IdToken through the gateway (token and role check, the tenant's rate limit, undici to stats) against the real stats service called directly with the service token; a bare node server and the service kit's express floor, both answering a constant, for scale; autocannon, ${report.load.connections} connections, ${report.load.durationSeconds} s each${report.loadAverage === undefined ? "" : `; load average ${report.loadAverage} (2 cores)`}.`,
    "",
    "| target | req/s | p50 | p99 | errors |",
    "|---|---|---|---|---|",
    row("stats directly (service token)", report.direct),
    ...(report.bareServer ? [row("bare node server, constant answer", report.bareServer)] : []),
    row("service-kit app, constant answer (floor)", report.expressFloor),
    row("through the gateway", report.gateway),
    "",
    `One request at a time (hrtime, ${SEQUENTIAL_REQUESTS} each): direct p50 ${s.directP50Ms} ms / p99 ${s.directP99Ms} ms; gateway p50 ${s.gatewayP50Ms} ms / p99 ${s.gatewayP99Ms} ms.`,
    "",
    ...(report.floorShareOfBare === undefined
      ? []
      : [
          `Service kit floor (request ids, access lines at info, metrics, body limit, fallbacks on): ${(report.floorShareOfBare * 100).toFixed(1)} % of the bare server's rate (target ≥ ${(report.targets.floorShareOfBare ?? 0) * 100} %); CPU per request by layer: packages/service-kit/README.md.`,
          "",
        ]),
    `Added at p50: ${report.addedSequentialP50Ms} ms one at a time, ${report.addedP50Ms} ms under load (target ≤ ${report.targets.addedP50Ms} ms). Throughput kept: ${(report.throughputShare * 100).toFixed(1)} % of stats called directly (target ≥ ${report.targets.throughputShare * 100} %), ${(report.throughputShareOfExpressFloor * 100).toFixed(1)} % of the express floor. Gateway peak RSS ${report.gatewayPeakRssMiB} MiB.`,
    "",
  ].join("\n");
}
