import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { eventually } from "@arena/service-kit/testing";
import { Redis as SingleRedis } from "ioredis";

const run = promisify(execFile);

/** The cluster's waits ask every 100 ms: each probe opens connections to its nodes. */
const EVERY_MS = 100;

/** `probe`, answering undefined (not yet) where it throws: a node starting or failing over refuses. */
const quietly =
  <T>(probe: () => Promise<T | undefined>) =>
  () =>
    probe().catch(() => undefined);

/** A Redis Cluster of real `redis-server` processes on loopback ports, for tests. */
export interface TestCluster {
  /** `127.0.0.1:port,...` of every node: the value of REDIS_CLUSTER_NODES. */
  seeds: string;
  ports: number[];
  /** The port of the master that owns the slot of `key`. */
  masterOf(key: string): Promise<number>;
  /** A replica of the master on `masterPort`, once it is in sync. */
  replicaOf(masterPort: number): Promise<number>;
  /** What the node on `port` is now (down: it does not answer). */
  role(port: number): Promise<"master" | "replica" | "down">;
  /** SIGKILLs a node (a crashed master); its replica takes over after the node timeout. */
  kill(port: number): void;
  /** `CLUSTER FAILOVER` on a replica: it becomes master of its master's slots, without loss. */
  failover(replicaPort: number): Promise<void>;
  /** Resolves once every live node sees every slot served (`cluster_state:ok`). */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  /** Kills every node and removes their files. */
  stop(): Promise<void>;
}

export interface TestClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /** How long a master may be silent before its replica is promoted (cluster-node-timeout). */
  nodeTimeoutMs?: number;
}

/**
 * Starts Debian's `redis-server` (7.0) as a cluster, 3 masters and 3 replicas by default, on free
 * loopback ports with no persistence, joined with `redis-cli --cluster create`, and waits until
 * every node reports `cluster_state:ok` and every replica is in sync.
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  const total = masters * (1 + replicasPerMaster);
  const dir = mkdtempSync(join(tmpdir(), "arena-redis-cluster-"));
  const ports = await freeClusterPorts(total);
  const nodes = new Map<number, ChildProcess>();
  const killAll = () => {
    for (const child of nodes.values()) child.kill("SIGKILL");
  };
  process.once("exit", killAll);
  try {
    for (const port of ports) nodes.set(port, startNode(dir, port, options.nodeTimeoutMs ?? 2_000));
    await Promise.all(ports.map((port) => untilAnswers(port, 10_000)));
    await run("redis-cli", [
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      String(replicasPerMaster),
      "--cluster-yes",
    ]);
  } catch (err) {
    killAll();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const cluster = clusterControl(dir, ports, nodes, () => {
    killAll();
    process.removeListener("exit", killAll);
  });
  try {
    await cluster.waitUntilHealthy(30_000);
    if (replicasPerMaster > 0) {
      await Promise.all((await mastersOf(ports)).map((port) => cluster.replicaOf(port)));
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

function clusterControl(
  dir: string,
  ports: number[],
  nodes: Map<number, ChildProcess>,
  killAll: () => void,
): TestCluster {
  const live = () => ports.filter((p) => nodes.get(p)?.exitCode === null && !nodes.get(p)?.killed);
  return {
    seeds: ports.map((p) => `127.0.0.1:${p}`).join(","),
    ports,
    async masterOf(key) {
      return withNode(live()[0]!, async (node) => {
        const slot = await node.cluster("KEYSLOT", key);
        const shards = await node.cluster("SLOTS");
        const owner = shards.find(([from, to]) => slot >= from && slot <= to);
        if (!owner) throw new Error(`No node serves slot ${slot}`);
        return owner[2]![1];
      });
    },
    async replicaOf(masterPort) {
      const id = await withNode(masterPort, (node) => node.cluster("MYID") as Promise<string>);
      return eventually(
        quietly(async () => {
          for (const port of live()) {
            const info = await withNode(port, (node) => node.info("replication"));
            if (!info.includes(`master_port:${masterPort}`) || !info.includes("master_link_status:up"))
              continue;
            const myself = await withNode(port, (node) => node.cluster("NODES") as Promise<string>);
            if (myself.split("\n").some((l) => l.includes("myself") && l.includes(id))) return port;
          }
          return undefined;
        }),
        { timeoutMs: 20_000, everyMs: EVERY_MS, what: `a replica in sync with ${masterPort}` },
      );
    },
    async role(port) {
      const info = await withNode(port, (node) => node.info("replication")).catch(() => undefined);
      if (info === undefined) return "down";
      return info.includes("role:master") ? "master" : "replica";
    },
    kill(port) {
      nodes.get(port)?.kill("SIGKILL");
    },
    async failover(replicaPort) {
      // A manual failover gives up when the replica cannot catch up in time (a loaded machine):
      // asked again until the replica is master.
      const isMaster = async () => (await this.role(replicaPort)) === "master";
      await eventually(
        quietly(async () => {
          if (await isMaster()) return true;
          await withNode(replicaPort, (node) => node.cluster("FAILOVER"));
          // Given 5 s to take over; past that (an error here too) it is asked again.
          return eventually(isMaster, { timeoutMs: 5_000, everyMs: EVERY_MS });
        }),
        { timeoutMs: 30_000, everyMs: EVERY_MS, what: `${replicaPort} to become a master` },
      );
    },
    async waitUntilHealthy(timeoutMs = 30_000) {
      await eventually(
        quietly(async () => {
          for (const port of live()) {
            const info = await withNode(port, (node) => node.cluster("INFO") as Promise<string>);
            if (!info.includes("cluster_state:ok") || !info.includes("cluster_slots_ok:16384"))
              return undefined;
          }
          return true;
        }),
        { timeoutMs, everyMs: EVERY_MS, what: "cluster_state:ok on every node" },
      );
    },
    async stop() {
      // The nodes are unref'd (see startNode), so waiting for their exit would not keep the event
      // loop alive: a script awaiting stop() at top level would end with "unsettled top-level
      // await" (exit code 13) before the exit events arrive. Ref'd again while we wait for them.
      for (const child of nodes.values()) child.ref();
      killAll();
      await Promise.all(
        [...nodes.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) resolve();
              else child.once("exit", () => resolve());
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function startNode(dir: string, port: number, nodeTimeoutMs: number): ChildProcess {
  // biome-ignore format: one redis-server option per line
  const child = spawn("redis-server", [
    "--port", String(port),
    "--bind", "127.0.0.1",
    "--dir", dir,
    "--cluster-enabled", "yes",
    "--cluster-config-file", join(dir, `nodes-${port}.conf`),
    "--cluster-node-timeout", String(nodeTimeoutMs),
    "--save", "",
    "--appendonly", "no",
    // A new replica syncs at once instead of waiting 5 s for others to share the transfer.
    "--repl-diskless-sync-delay", "0",
    "--logfile", join(dir, `${port}.log`),
  ], { stdio: "ignore" });
  child.on("error", () => {});
  // A test that fails before stop() must not keep the test runner waiting: the exit handler kills it.
  child.unref();
  return child;
}

/** The ports whose node is a master now. */
async function mastersOf(ports: number[]): Promise<number[]> {
  const roles = await Promise.all(ports.map((p) => withNode(p, (node) => node.info("replication"))));
  return ports.filter((_, i) => roles[i]!.includes("role:master"));
}

async function withNode<T>(port: number, work: (node: SingleRedis) => Promise<T>): Promise<T> {
  const node = new SingleRedis(port, "127.0.0.1", {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
  });
  node.on("error", () => {});
  try {
    await node.connect();
    return await work(node);
  } finally {
    node.disconnect();
  }
}

async function untilAnswers(port: number, timeoutMs: number): Promise<void> {
  await eventually(
    quietly(async () => (await withNode(port, (node) => node.ping())) === "PONG"),
    {
      timeoutMs,
      everyMs: EVERY_MS,
      what: `redis-server on ${port}`,
    },
  );
}

/** Free loopback ports whose cluster bus port (+10000) is free too. */
async function freeClusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (ports.includes(port) || ports.includes(port + 10_000) || ports.includes(port - 10_000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) ports.push(port);
  }
  return ports;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
