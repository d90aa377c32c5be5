/** Where the services find PostgreSQL when DATABASE_URL is unset: the local development server. */
export const DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

/** PostgreSQL's limit on identifier length (NAMEDATALEN - 1). */
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * DATABASE_URL from the environment, or the local development server with `fallbackDbName`
 * (default `postgres`) when it is unset or empty.
 */
export function databaseUrlFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  fallbackDbName = "postgres",
): string {
  const fromEnv = env.DATABASE_URL;
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv.trim();
  return withDatabaseName(DEFAULT_SERVER_URL, fallbackDbName);
}

function parsePostgresUrl(databaseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error("The database URL is not a valid URL (expected postgresql://user@host:port/database)");
  }
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
    throw new Error(`The database URL must use postgresql://, not ${url.protocol}//`);
  }
  return url;
}

/** The database a connection string names; throws when it names none. */
export function databaseNameOf(databaseUrl: string): string {
  const url = parsePostgresUrl(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (name === "")
    throw new Error("The database URL names no database (expected .../<database> after the port)");
  if (name.length > MAX_IDENTIFIER_LENGTH) {
    throw new Error(
      `The database name "${name}" is longer than PostgreSQL's ${MAX_IDENTIFIER_LENGTH} characters`,
    );
  }
  return name;
}

/** The same server, user and options, pointing at another database. */
export function withDatabaseName(databaseUrl: string, databaseName: string): string {
  const url = parsePostgresUrl(databaseUrl);
  url.pathname = `/${encodeURIComponent(databaseName)}`;
  return url.toString();
}

/**
 * Prisma's `?schema=` option selects a PostgreSQL schema other than `public`; the migration tooling
 * here works on `public` only (each service owns a whole database), so say so rather than
 * silently migrating the wrong schema.
 */
export function assertPublicSchema(databaseUrl: string): void {
  const schema = parsePostgresUrl(databaseUrl).searchParams.get("schema");
  if (schema !== null && schema !== "public") {
    throw new Error(`The database URL selects schema "${schema}"; only the public schema is supported`);
  }
}

/** Quotes an SQL identifier (database names come from configuration, so never trust them). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL with its password masked, for log lines and error messages. */
export function redactUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password !== "") url.password = "***";
    return url.toString();
  } catch {
    return "(invalid URL)";
  }
}

/** The URL as node-postgres should see it: Prisma's own `schema` option removed. */
export function pgConnectionString(databaseUrl: string): string {
  const url = parsePostgresUrl(databaseUrl);
  url.searchParams.delete("schema");
  return url.toString();
}
