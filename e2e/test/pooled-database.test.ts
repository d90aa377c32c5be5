import { databaseNameOf, withDatabaseName } from "@arena/database";
import { type PgBouncer, type ReplicaPair, startPgBouncer, startReplicaPair } from "@arena/database/testing";
import { closeRedis, createRedis } from "@arena/redis";
import { startTestCluster, type TestCluster } from "@arena/redis/testing";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { PLATFORM_POLL, provisionTenant } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";
import { referenceFlow } from "../src/reference-flow.js";

/**
 * The reference flow on everything a grown platform runs on at once: every app's DATABASE_URL
 * through PgBouncer's transaction pooling, stats reading from a streaming replica, and stats and the
 * gateway on a Redis Cluster (3 masters, 3 replicas). The databases are created and migrated on the
 * primary directly (as a migration job does, DATABASE_MIGRATION_URL); the apps only ever see the
 * pooler.
 */
let cluster: TestCluster;
let pair: ReplicaPair;
let bouncer: PgBouncer;
let platform: Platform;

beforeAll(async () => {
  cluster = await startTestCluster();
  pair = await startReplicaPair();
  bouncer = await startPgBouncer({ serverUrl: pair.primaryUrl, poolMode: "transaction", poolSize: 5 });
  platform = await startPlatform({
    redisClusterNodes: cluster.seeds,
    databaseServerUrl: pair.primaryUrl,
    databaseEnv: (app, url) => ({
      DATABASE_URL: bouncer.url(databaseNameOf(url)),
      DATABASE_MIGRATION_URL: url,
      ...(app === "stats"
        ? {
            DATABASE_POOL_MODE: "transaction",
            DATABASE_READ_URL: withDatabaseName(pair.replicaUrl, databaseNameOf(url)),
          }
        : {}),
    }),
  });
}, 180_000);
afterAll(async () => {
  await platform?.close();
  await bouncer?.stop();
  await pair?.stop();
  await cluster?.stop();
});

async function replicaTransactions(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: pair.replicaUrl });
  await client.connect();
  try {
    const res = await client.query("SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = $1", [
      database,
    ]);
    return res.rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

describe("the platform behind PgBouncer (transaction pooling), with a read replica and on a Redis Cluster", () => {
  it("runs the reference flow end to end", async () => {
    const statsDatabase = databaseNameOf(platform.statsDatabaseUrl);
    const before = await replicaTransactions(statsDatabase);
    // Stats reads statistics and history from the replica, which may not have replayed the
    // completions yet when the flow reads them (no read-your-writes across a replica, as documented).
    const steps = await referenceFlow(platform.gateway.url, await provisionTenant(platform), {
      beforeReads: () => pair.caughtUp(),
    });
    const failed = steps.filter((s) => typeof s.status === "number" && s.status >= 300);
    expect(failed).toEqual([]);
    const step = (name: string) => steps.find((s) => s.step === name)?.body;
    expect(step("ref-a's statistics")).toMatchObject({
      playerId: "ref-a",
      totalMatchesPlayed: 1,
      totalWins: 1,
    });
    expect(step("ref-d's history")).toMatchObject({
      results: [expect.objectContaining({ outcome: "loss" })],
    });

    // Every app's database went through the pooler, in transaction mode.
    const pools = await bouncer.pools();
    for (const app of [platform.license, platform.stats, platform.gateway]) {
      expect(app.env.DATABASE_URL).toBe(bouncer.url(databaseNameOf(app.env.DATABASE_MIGRATION_URL!)));
      const pool = pools.find((p) => p.database === databaseNameOf(app.env.DATABASE_URL!));
      expect(pool).toMatchObject({ pool_mode: "transaction" });
    }
    // Stats' reads reached the replica, and it reports the replica's lag.
    await eventually(async () => (await replicaTransactions(statsDatabase)) > before, PLATFORM_POLL);
    const metrics = await (await fetch(`${platform.stats.url}/metrics`)).text();
    expect(metrics).toMatch(/^stats_database_replica_lag_seconds\{[^}]*\} \d/m);

    // Stats and the gateway ran on the cluster: the boards the flow wrote are on its masters.
    for (const app of [platform.stats, platform.gateway])
      expect(app.env.REDIS_CLUSTER_NODES).toBe(cluster.seeds);
    let keys = 0;
    for (const port of cluster.ports) {
      if ((await cluster.role(port)) !== "master") continue;
      const node = createRedis(`redis://127.0.0.1:${port}`, {
        connectionName: "e2e",
        queueWhileDisconnected: true,
      });
      try {
        keys += (await node.scan("0", "MATCH", `${platform.redisKeyPrefix}*`, "COUNT", 100_000))[1].length;
      } finally {
        await closeRedis(node);
      }
    }
    expect(keys).toBeGreaterThan(0);
  });
});
