/**
 * Helpers for tests that need a real Redis Cluster (`@arena/redis/testing`): not part of the main
 * entry, so no app loads them (they start redis-server processes, and poll with the service kit's
 * test helpers).
 */
export { startTestCluster, type TestCluster, type TestClusterOptions } from "./test-cluster.js";
