import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { withDatabaseName } from "../src/database-url.js";
import { type PgBouncer, type ReplicaPair, startPgBouncer, startReplicaPair } from "../src/testing.js";
import { walRecordEndSql } from "../src/wal-position.js";

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

describe("startReplicaPair", () => {
  let pair: ReplicaPair;
  let primary: pg.Client;
  let replica: pg.Client;
  beforeAll(async () => {
    pair = await startReplicaPair();
    primary = await connect(pair.primaryUrl);
    replica = await connect(pair.replicaUrl);
    await primary.query("CREATE TABLE notes (id int PRIMARY KEY, body text)");
  }, 60_000);
  afterAll(async () => {
    await primary?.end();
    await replica?.end();
    await pair?.stop();
  });

  it("streams a row written on the primary to the standby within a second", async () => {
    await primary.query("INSERT INTO notes VALUES (1, 'streamed')");
    const started = Date.now();
    let rows: unknown[] = [];
    while (rows.length === 0 && Date.now() - started < 1000) {
      rows = (await replica.query("SELECT body FROM notes WHERE id = 1").catch(() => ({ rows: [] }))).rows;
    }
    expect(rows).toEqual([{ body: "streamed" }]);
    expect((await replica.query("SELECT pg_is_in_recovery() AS standby")).rows[0]).toEqual({ standby: true });
    await expect(replica.query("INSERT INTO notes VALUES (2, 'no')")).rejects.toThrow("read-only");
  });

  it("waits in caughtUp for a commit that is acknowledged but not yet flushed (asynchronous commit)", async () => {
    // The pair runs with synchronous_commit=off: a commit is acknowledged while its WAL record may
    // still sit in the primary's buffers, ahead of pg_current_wal_lsn() (the write position).
    for (let id = 100; id < 110; id++) {
      await primary.query("INSERT INTO notes VALUES ($1, 'async')", [id]);
      await pair.caughtUp();
      expect((await replica.query("SELECT body FROM notes WHERE id = $1", [id])).rows).toEqual([
        { body: "async" },
      ]);
    }
  });

  it("takes a page header off an insert position just past it, and nothing off a record's end", async () => {
    const end = async (lsn: string) =>
      (await primary.query<{ lsn: string }>(walRecordEndSql("$1::pg_lsn"), [lsn])).rows[0]!.lsn;
    expect(await end("0/2018")).toBe("0/2000"); // just past a page's short header
    expect(await end("0/1002018")).toBe("0/1002000");
    expect(await end("1/28")).toBe("1/0"); // just past a segment's long header
    expect(await end("0/1000028")).toBe("0/1000000");
    expect(await end("0/1000018")).toBe("0/1000018"); // inside a segment's long header: not a header's end
    expect(await end("0/2028")).toBe("0/2028"); // a record ending 16 bytes into a page
    expect(await end("0/2030")).toBe("0/2030");
  });

  it("serves stale rows while replay is paused, and catches up once resumed", async () => {
    await pair.pauseReplay();
    await primary.query("INSERT INTO notes VALUES (3, 'later')");
    await new Promise((r) => setTimeout(r, 300));
    expect((await replica.query("SELECT body FROM notes WHERE id = 3")).rows).toEqual([]);
    await pair.resumeReplay();
    await pair.caughtUp();
    expect((await replica.query("SELECT body FROM notes WHERE id = 3")).rows).toEqual([{ body: "later" }]);
  });
});

describe("startPgBouncer", () => {
  let pair: ReplicaPair;
  let bouncer: PgBouncer;
  beforeAll(async () => {
    pair = await startReplicaPair();
    bouncer = await startPgBouncer({
      serverUrl: pair.primaryUrl,
      poolMode: "session",
      poolSize: 2,
      databases: { postgres_tx: { dbname: "postgres", poolMode: "transaction" } },
    });
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
    await pair?.stop();
  });

  it("pools each database in its own mode, as SHOW POOLS reports", async () => {
    const session = await connect(bouncer.url("postgres"));
    const transaction = await connect(bouncer.url("postgres_tx"));
    const ports = await Promise.all(
      [session, transaction].map(
        async (c) => (await c.query("SELECT inet_server_port() AS port")).rows[0].port,
      ),
    );
    expect(ports).toEqual([Number(new URL(pair.primaryUrl).port), Number(new URL(pair.primaryUrl).port)]);
    const pools = await bouncer.pools();
    const modeOf = (database: string) => pools.find((p) => p.database === database)?.pool_mode;
    expect([modeOf("postgres"), modeOf("postgres_tx")]).toEqual(["session", "transaction"]);
    await session.end();
    await transaction.end();
  });

  it("keeps a session's prepared statement in session mode, and loses it in transaction mode", async () => {
    const [a, b] = [await connect(bouncer.url("postgres")), await connect(bouncer.url("postgres"))];
    await a.query("PREPARE kept AS SELECT 1 AS one");
    await b.query("BEGIN");
    expect((await a.query("EXECUTE kept")).rows).toEqual([{ one: 1 }]);
    await b.query("COMMIT");

    const [c, d] = [await connect(bouncer.url("postgres_tx")), await connect(bouncer.url("postgres_tx"))];
    await c.query("PREPARE lost AS SELECT 1 AS one");
    // d's transaction holds the server connection c prepared on, so c's next statement gets another.
    await d.query("BEGIN");
    await expect(c.query("EXECUTE lost")).rejects.toThrow('prepared statement "lost" does not exist');
    await d.query("COMMIT");
    for (const client of [a, b, c, d]) await client.end();
  });

  it("reaches any database of the server through the fallback entry", async () => {
    const client = await connect(withDatabaseName(bouncer.url("postgres"), "template1"));
    expect((await client.query("SELECT current_database() AS db")).rows).toEqual([{ db: "template1" }]);
    await client.end();
  });
});
