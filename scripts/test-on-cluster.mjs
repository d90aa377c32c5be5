#!/usr/bin/env node
// `pnpm test:cluster`: the Redis-touching suites again, on a real Redis Cluster (3 masters, 3
// replicas of Debian's redis-server on free loopback ports, started here and removed afterwards).
// Every test Redis the suites create (createTestRedis) is then a prefix on that cluster. Only the
// suites where the cluster changes something run (scripts, multi-key commands, pub/sub, the lease):
// the whole test run takes too long to repeat. Needs `pnpm build` first (it uses the built harness).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { startTestCluster } = await import(join(root, "packages/redis/dist/testing.js"));

/** Package → the test files (jest path patterns) that touch Redis in a way a cluster can break. */
const SUITES = [
  // the fan-out and the harness (the script-slot and failover tests start clusters of their own)
  ["@arena/redis", ["test/push-fanout", "test/redis.test"]],
  // leaderboards and the outbox, the hosted queue and its matchmaking lease, the push fan-out
  ["@arena/stats", ["test/leaderboard", "test/queue", "test/push-and-backfill", "test/completion.test"]],
  // login throttles, tenant rate limits, the admin token guard (rate-limiter-flexible), WebSocket pushes
  [
    "@arena/gateway",
    ["test/login-lockout", "test/tenant-rate-limit", "test/admin-exposure", "test/websocket.test"],
  ],
];

const cluster = await startTestCluster();
console.log(`Redis Cluster on ${cluster.seeds}`);
let failed = false;
try {
  for (const [pkg, patterns] of SUITES) {
    // --forceExit: once in a while (one CI run of two here) something of the gateway's suites on
    // the cluster, not yet found, keeps the process alive after every test has passed, and jest
    // would wait for it forever; the results are final by then. The timeout bounds the run
    // whatever else hangs. No "--" before the arguments: pnpm hands them to jest as they are, and
    // after a "--" jest would read --forceExit as one more test path pattern (it did: a run hung).
    const result = spawnSync("pnpm", ["--filter", pkg, "test", "--forceExit", ...patterns], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, TEST_REDIS_CLUSTER_NODES: cluster.seeds },
      timeout: 10 * 60_000,
    });
    if (result.status !== 0) {
      console.error(`${pkg} on the cluster: ${result.error?.message ?? `exit ${result.status}`}`);
      failed = true;
    }
  }
} finally {
  await cluster.stop();
}
process.exit(failed ? 1 : 0);
