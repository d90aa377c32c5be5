import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { sqlLiteral } from "./db.js";

const samples = [
  "",
  "plain",
  "it's",
  "''",
  "back\\slash",
  "both ' and \\ and \\'",
  '{"a":"b\\"c","d":"it\'s"}',
  "naïve ✓ 𝄞",
  "\n\t",
];

describe("sqlLiteral", () => {
  it("writes every string as pg's escapeLiteral does", () => {
    for (const s of samples) expect(sqlLiteral(s)).toBe(pg.escapeLiteral(s));
  });

  describe("read back by PostgreSQL", () => {
    const client = new pg.Client({
      connectionString: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
    });
    beforeAll(() => client.connect());
    afterAll(() => client.end());

    it("is the same string", async () => {
      const res = await client.query<{ v: string }>(
        `${samples.map((s, i) => `SELECT ${sqlLiteral(s)} AS v, ${i} AS i`).join(" UNION ALL ")} ORDER BY i`,
      );
      expect(res.rows.map((r) => r.v)).toEqual(samples);
    });
  });
});
