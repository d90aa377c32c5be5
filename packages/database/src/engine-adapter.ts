import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { pgConnectionString, quoteIdentifier, withDatabaseName } from "./database-url.js";
import { withMaintenanceClient } from "./pg-admin.js";

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type QueryResultLike = { fields?: Array<{ dataTypeID: number }> };
type QueryMethod = (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * The schema engine reads PostgreSQL's catalogs, which use the internal one-byte `"char"` type
 * (e.g. `pg_class.relkind`). @prisma/adapter-pg 7.10 has no column type for it and fails the whole
 * query ("Column type 'char' could not be deserialized"), which breaks every schema description,
 * so diffs from a migrations directory are impossible. node-postgres already returns it as a
 * string; reporting it as `text` lets the adapter pass it through unchanged.
 */
function reportCharAsText<T>(result: T): T {
  if (Array.isArray(result)) {
    for (const each of result) reportCharAsText(each);
    return result;
  }
  for (const field of (result as QueryResultLike | null)?.fields ?? []) {
    if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  }
  return result;
}

/** The node-postgres client used only by schema engine connections; app clients are untouched. */
class SchemaEngineClient extends pg.Client {}
const baseQuery = pg.Client.prototype.query as unknown as QueryMethod;
// `query` has a dozen overloads (promise, callback, submittable); wrapping the implementation
// keeps all of them working without restating their types.
(SchemaEngineClient.prototype as unknown as { query: QueryMethod }).query = function query(
  this: pg.Client,
  ...args: unknown[]
): unknown {
  const callbackIndex = args.findIndex((arg) => typeof arg === "function");
  if (callbackIndex >= 0) {
    const callback = args[callbackIndex] as (error: unknown, result: unknown) => void;
    args[callbackIndex] = (error: unknown, result: unknown) =>
      callback(error, error ? result : reportCharAsText(result));
    return baseQuery.apply(this, args);
  }
  const returned = baseQuery.apply(this, args);
  return returned instanceof Promise ? returned.then(reportCharAsText) : returned;
};

function poolConfig(databaseUrl: string): pg.PoolConfig {
  return {
    connectionString: pgConnectionString(databaseUrl),
    Client: SchemaEngineClient,
    application_name: "arena-db",
  };
}

/** Makes `dispose` safe to call twice (by the engine and by our own cleanup). */
function disposeOnce(adapter: SqlDriverAdapter, after?: () => Promise<void>): () => Promise<void> {
  const original = adapter.dispose.bind(adapter);
  let disposing: Promise<void> | undefined;
  adapter.dispose = () => {
    disposing ??= original().finally(() => after?.());
    return disposing;
  };
  return adapter.dispose;
}

/**
 * A driver adapter factory for the schema engine: connections to the target database, and shadow
 * databases that really are separate databases and are really dropped. (adapter-pg 7.10's own
 * `connectToShadowDb` reuses the main database when given a connection string, and otherwise
 * drops the shadow database while its pool still holds a connection.)
 */
export class SchemaEngineAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "postgres";
  readonly adapterName = "@arena/database";
  readonly #databaseUrl: string;
  readonly #disposers = new Set<() => Promise<void>>();

  constructor(databaseUrl: string) {
    this.#databaseUrl = databaseUrl;
  }

  async connect(): Promise<SqlDriverAdapter> {
    const adapter = await new PrismaPg(poolConfig(this.#databaseUrl)).connect();
    this.#disposers.add(disposeOnce(adapter));
    return adapter;
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const name = `prisma_migrate_shadow_db_${randomUUID().replaceAll("-", "")}`;
    const drop = () =>
      withMaintenanceClient(this.#databaseUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
      });
    await withMaintenanceClient(this.#databaseUrl, async (client) => {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    });
    try {
      const adapter = await new PrismaPg(poolConfig(withDatabaseName(this.#databaseUrl, name))).connect();
      // The pool is closed first, then the database dropped (WITH FORCE in case a connection lingers).
      this.#disposers.add(disposeOnce(adapter, drop));
      return adapter;
    } catch (error) {
      await drop().catch(() => {});
      throw error;
    }
  }

  /** Closes every pool this factory opened and drops any shadow database still left. */
  async close(): Promise<void> {
    const disposers = [...this.#disposers];
    this.#disposers.clear();
    const results = await Promise.allSettled(disposers.map((dispose) => dispose()));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
  }
}
