import pg from "pg";
import type { Platform } from "./platform.js";

/** Rows of one query on stats' own database, over a short-lived connection: what a test checks there. */
export async function queryStats<T extends pg.QueryResultRow>(
  platform: Platform,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: platform.statsDatabaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
