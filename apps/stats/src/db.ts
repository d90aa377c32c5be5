import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;
export type { Prisma } from "./generated/prisma/client.js";
export type SqlPool = pg.Pool;
export type SqlClient = pg.PoolClient;

/**
 * How the connections reach PostgreSQL (DATABASE_POOL_MODE). `session`: each connection is a
 * server session of its own for as long as it lives (direct, or PgBouncer's session pooling), so
 * the hot statements are prepared once per connection. `transaction`: PgBouncer's transaction
 * pooling hands each transaction (each statement outside one) whichever server connection is
 * free, so nothing may outlive a transaction: statements are sent unnamed, with their text.
 */
export type PoolMode = "session" | "transaction";

/** Pools and connections in `transaction` mode; anything else keeps session state. */
const withoutSessionState = new WeakSet<object>();

/** Whether what `client` runs on keeps session state: prepared statements are defined there. */
export function keepsSessionState(client: Queryable): boolean {
  return !withoutSessionState.has(client);
}

/**
 * One pool of PostgreSQL connections per process (`poolSize` bounds them). Prisma runs on it for
 * the ordinary queries; the hot paths (a match completion's transaction, a leaderboard rebuild's
 * pages) use it directly, because Prisma's per-query cost is most of a completion's CPU time.
 */
export function createPool(connectionString: string, poolSize = 10, mode: PoolMode = "session"): SqlPool {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // A connection that breaks (PostgreSQL restarted) must not crash the process: idle ones report
  // to the pool, and a checked-out one (a transaction in progress) emits "error" on itself, which
  // with no listener is an uncaught exception. Its query fails as usual, and the pool drops the
  // broken connection when it is released.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
    if (mode === "transaction") withoutSessionState.add(client);
  });
  if (mode === "transaction") withoutSessionState.add(pool);
  return pool;
}

export function createDatabaseClient(pool: SqlPool): Database {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

// The readiness check is the database package's: the same for every app.
export { databaseReadiness } from "@arena/database";

/** PostgreSQL's deadlock and serialization failures: the transaction may simply run again. */
const RETRYABLE = new Set(["40P01", "40001"]);
/** Attempts of a transaction that failed retryably, the first included. */
export const TRANSACTION_ATTEMPTS = 3;

export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && RETRYABLE.has(code);
}

/**
 * Runs `fn` in one transaction on a pooled connection: committed when it returns, rolled back
 * when it throws (the error passes through), so a request that fails halfway changes nothing. A
 * transaction PostgreSQL aborted as a deadlock victim runs again (at most three times).
 */
export async function inTransaction<T>(pool: SqlPool, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transactionOnce(pool, fn);
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryable(err)) throw err;
    }
  }
}

async function transactionOnce<T>(pool: SqlPool, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Names for the parameters of the stores' statements (`SqlStatement<[Tenant, Game, ...]>`), so a
 * statement's type says what each `$n` is. Tenant first in every statement: each table's key
 * starts with it.
 */
export type Tenant = string;
export type Game = string;
export type MatchId = string;
export type PlayerId = string;
export type Season = number;

/** A pool or a checked-out connection: whatever a statement runs on. */
export interface Queryable {
  query<Row extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<Row>>;
}

/**
 * One SQL statement of a store, with the shape of its parameters and rows, so the stores hold
 * names instead of SQL strings (each domain keeps its statements in a `*-sql.ts` module). It runs
 * with `$n` parameters; `prepared` ones are also named, so each connection parses and plans them
 * once (only for statements that run on every request of a hot path).
 */
export class SqlStatement<
  Params extends readonly unknown[],
  Row extends pg.QueryResultRow = pg.QueryResultRow,
> {
  constructor(
    readonly name: string,
    readonly text: string,
    private readonly options: { prepared?: boolean } = {},
  ) {}

  run(client: Queryable, ...values: Params): Promise<pg.QueryResult<Row>> {
    const config = { text: this.text, values: [...values] };
    // A named statement is prepared on the server connection it first ran on; under transaction
    // pooling the next run may get another one, which has never heard of the name.
    const named = this.options.prepared && keepsSessionState(client);
    return client.query<Row>(named ? { ...config, name: this.name } : config);
  }
}

/**
 * A hot statement PostgreSQL parses and plans once per connection (SQL `PREPARE`), then runs by
 * name. `EXECUTE` is plain SQL, so it fits the simple-query protocol that lets BEGIN or a second
 * statement share a round trip, which the protocol's own prepared statements do not. Parsing and
 * planning were about a third of PostgreSQL's CPU under the queue benchmark before. On a
 * connection without session state (transaction pooling) the same call sends the statement's text
 * with the literals in place instead (`sqlFor`), parsed and planned each time.
 */
export class PreparedStatement {
  /** `name` is an SQL identifier; `params` are the parameter types, `$1` first. */
  constructor(
    readonly name: string,
    private readonly params: readonly string[],
    private readonly text: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a statement name: ${name}`);
  }

  /** The `PREPARE` that defines it on a connection. */
  get definition(): string {
    return `PREPARE ${this.name}(${this.params.join(", ")}) AS ${this.text}`;
  }

  /**
   * `EXECUTE name(…)` with arguments that are already SQL literals (`client.escapeLiteral`,
   * `sqlInteger`): never raw client text.
   */
  execute(...literals: string[]): string {
    if (literals.length !== this.params.length) {
      throw new Error(`${this.name} takes ${this.params.length} arguments, got ${literals.length}`);
    }
    return `EXECUTE ${this.name}(${literals.join(", ")})`;
  }

  /**
   * The statement itself with each `$n` replaced by its literal cast to the parameter's type: what
   * runs where nothing can be prepared. (The texts hold `$n` only as parameters, never in quotes.)
   */
  inline(...literals: string[]): string {
    this.execute(...literals);
    return this.text.replace(/\$(\d+)(?!\d)/g, (_, n: string) => {
      const i = Number(n) - 1;
      if (i >= this.params.length) throw new Error(`${this.name} has no parameter $${n}`);
      return `(${literals[i]})::${this.params[i]}`;
    });
  }

  /** What runs it on `client`: `EXECUTE` where it is prepared, else its text (`inline`). */
  sqlFor(client: SqlClient, ...literals: string[]): string {
    return keepsSessionState(client) ? this.execute(...literals) : this.inline(...literals);
  }
}

/** The statements each pooled connection has prepared (a replaced connection starts empty). */
const preparedOn = new WeakMap<SqlClient, Set<string>>();

/**
 * Defines on this connection the statements it has not prepared yet: one round trip the first
 * time, none after. A prepared statement outlives a rolled-back transaction, and PostgreSQL
 * plans it again by itself when a migration changes a table it reads.
 */
export async function prepare(client: SqlClient, statements: readonly PreparedStatement[]): Promise<void> {
  // Under transaction pooling this connection's next transaction may run on another server
  // connection than the PREPARE did: `sqlFor` sends the text instead.
  if (!keepsSessionState(client)) return;
  const done = preparedOn.get(client) ?? new Set<string>();
  preparedOn.set(client, done);
  const missing = statements.filter((s) => !done.has(s.name));
  if (missing.length === 0) return;
  await client.query(missing.map((s) => s.definition).join(";\n"));
  for (const s of missing) done.add(s.name);
}

/**
 * A string as an SQL literal, exactly as `pg`'s `escapeLiteral` writes it (quotes doubled; with a
 * backslash, an `E''` literal with backslashes doubled), but with native string replacement: the
 * completion's JSON literals run to kilobytes, and `pg`'s character-by-character loop was a few
 * percent of stats' CPU under the queue benchmark.
 */
export function sqlLiteral(value: string): string {
  const quoted = value.includes("'") ? value.replace(/'/g, "''") : value;
  return value.includes("\\") ? ` E'${quoted.replace(/\\/g, "\\\\")}'` : `'${quoted}'`;
}

/** An integer written into SQL text; anything else is a bug, never text to interpolate. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}
