/**
 * Test helpers (`@arena/redis/testing`; not part of the main entry, so no app loads them): a prefix of
 * its own on the test Redis for each suite, and a real Redis Cluster (redis-server processes, polled
 * with the service kit's test helpers).
 */
export { startTestCluster, type TestCluster, type TestClusterOptions } from "./test-cluster.js";
export { createTestRedis, type TestRedis } from "./test-redis.js";
