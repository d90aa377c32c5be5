import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  closeRedis,
  createRedis,
  type FanoutDelivery,
  PushFanout,
  type Redis,
  redisKeys,
} from "../src/index.js";
import { startTestCluster, type TestCluster } from "../src/testing.js";

/**
 * The push fan-out on a real Redis Cluster whose masters fail: the sharded subscription of a
 * gateway replica and the tenant's registrations move to the promoted replicas, and pushes reach
 * the connection again without restarting anything.
 */
let cluster: TestCluster;
let stats: Redis;
let gateway: Redis;
const keys = redisKeys("failover_test:");

beforeAll(async () => {
  cluster = await startTestCluster();
  stats = createRedis({ REDIS_CLUSTER_NODES: cluster.seeds }, { queueWhileDisconnected: true });
  gateway = createRedis({ REDIS_CLUSTER_NODES: cluster.seeds }, { queueWhileDisconnected: true });
}, 60_000);
afterAll(async () => {
  await closeRedis(stats);
  await closeRedis(gateway);
  await cluster?.stop();
});

describe("push fan-out on a Redis Cluster", () => {
  it("delivers again after the masters of the replica channel and of the tenant's keys fail", async () => {
    const sub = { gameIds: ["ranked"], priority: 0, rateLimit: null };
    const sender = new PushFanout({ redis: stats, keys });
    const receiver = new PushFanout({ redis: gateway, keys });
    const deliveries: FanoutDelivery[] = [];
    const stop = await receiver.listen("r1", { delivery: (d) => deliveries.push(d), broadcast: () => {} });
    try {
      await receiver.register("ten_1", "r1", "r1.1", sub, 60_000);
      expect(await sender.offer("ten_1", "ranked", { n: 1 })).toBe("r1.1");
      await eventually(() => deliveries.length === 1, { timeoutMs: 20_000, everyMs: 100 });

      // The master serving the replica channel fails over by CLUSTER FAILOVER (planned), the one
      // holding the tenant's keys is killed (a crash); one node may be both.
      const channelMaster = await cluster.masterOf(keys.global("push", "replica", "r1"));
      const tenantMaster = await cluster.masterOf(keys.tenant("ten_1", "push", "subs"));
      await cluster.failover(await cluster.replicaOf(channelMaster));
      if (tenantMaster !== channelMaster) {
        const promoted = await cluster.replicaOf(tenantMaster);
        cluster.kill(tenantMaster);
        await eventually(async () => (await cluster.role(promoted)) === "master", {
          timeoutMs: 30_000,
          everyMs: 100,
        });
      }
      await cluster.waitUntilHealthy();

      // The registration survived on the replica (or the gateway's refresh writes it again) and the
      // subscriber follows the channel's new master.
      await eventually(
        async () => {
          await receiver.register("ten_1", "r1", "r1.1", sub, 60_000).catch(() => {});
          const chosen = await sender.offer("ten_1", "ranked", { n: 2 }).catch(() => null);
          return chosen === "r1.1" && deliveries.some((d) => JSON.parse(d.message).n === 2);
        },
        { timeoutMs: 30_000, everyMs: 100 },
      );
    } finally {
      await stop();
    }
  }, 120_000);
});
