import { describe, expect, it } from "@jest/globals";
import {
  assertPublicSchema,
  databaseNameOf,
  databaseUrlFromEnv,
  pgConnectionString,
  quoteIdentifier,
  redactUrl,
  withDatabaseName,
} from "./database-url.js";

describe("database URLs", () => {
  it("takes DATABASE_URL from the environment, else the local server with the fallback database", () => {
    expect(databaseUrlFromEnv({ DATABASE_URL: "postgresql://u:p@db:5432/stats" })).toBe(
      "postgresql://u:p@db:5432/stats",
    );
    expect(databaseUrlFromEnv({ DATABASE_URL: "" }, "arena_stats")).toBe(
      "postgresql://postgres@127.0.0.1:5432/arena_stats",
    );
    expect(databaseUrlFromEnv({})).toBe("postgresql://postgres@127.0.0.1:5432/postgres");
  });

  it("reads and replaces the database name, keeping credentials and options", () => {
    const url = "postgresql://user:secret@db.internal:6543/arena_license?sslmode=require";
    expect(databaseNameOf(url)).toBe("arena_license");
    expect(withDatabaseName(url, "postgres")).toBe(
      "postgresql://user:secret@db.internal:6543/postgres?sslmode=require",
    );
  });

  it("rejects URLs without a database, of another scheme, or with a non-public schema", () => {
    expect(() => databaseNameOf("postgresql://postgres@127.0.0.1:5432")).toThrow("names no database");
    expect(() => databaseNameOf("mysql://root@127.0.0.1/x")).toThrow("must use postgresql://");
    expect(() => databaseNameOf("not a url")).toThrow("not a valid URL");
    expect(() => assertPublicSchema("postgresql://h/db?schema=stats")).toThrow('selects schema "stats"');
    expect(() => assertPublicSchema("postgresql://h/db?schema=public")).not.toThrow();
  });

  it("removes Prisma's schema option before node-postgres sees the URL", () => {
    expect(pgConnectionString("postgresql://h/db?schema=public&sslmode=disable")).toBe(
      "postgresql://h/db?sslmode=disable",
    );
  });

  it("quotes identifiers and hides passwords", () => {
    expect(quoteIdentifier('we"ird')).toBe('"we""ird"');
    expect(redactUrl("postgresql://u:hunter2@h/db")).toBe("postgresql://u:***@h/db");
  });
});
