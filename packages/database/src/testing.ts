/**
 * Test helpers (`@arena/database/testing`; not part of the main entry, so no app loads them): a
 * throwaway database per suite, and real PostgreSQL topologies (a streaming replica pair and
 * PgBouncer, each started in seconds and stopped after).
 */

export { type CreateTestDatabaseOptions, createTestDatabase, type TestDatabase } from "./test-database.js";
export {
  type PgBouncer,
  type PgBouncerPool,
  type PgBouncerPoolMode,
  type StartPgBouncerOptions,
  startPgBouncer,
} from "./testing/pgbouncer.js";
export { type ReplicaPair, startReplicaPair } from "./testing/replica-pair.js";
