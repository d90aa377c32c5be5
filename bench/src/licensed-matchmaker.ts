import { join } from "node:path";
import { migrateDatabase } from "@arena/database";
import { nodeFlags, type Service, startService } from "./processes.js";

export const ADMIN_TOKEN = "bench-admin-token-0123456789";
/**
 * The matchmaker's production V8 flags (its Dockerfile and start script); the echo gets the same.
 * `BENCH_MATCHMAKER_FLAGS` replaces them, to measure other flags against the same floor.
 */
export const NODE_FLAGS = nodeFlags("BENCH_MATCHMAKER_FLAGS", "--max-semi-space-size=64");

/**
 * Starts the real license service and a matchmaker licensed by a key it issues; `started`
 * collects them for cleanup.
 */
export async function startLicensedMatchmaker(
  root: string,
  started: Service[],
): Promise<{ license: Service; matchmaker: Service; licenseKey: string }> {
  const licenseDir = join(root, "apps", "license");
  const databaseUrl =
    process.env.BENCH_LICENSE_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/arena_bench_license";
  await migrateDatabase({
    databaseUrl,
    schemaPath: join(licenseDir, "prisma", "schema.prisma"),
    migrationsDir: join(licenseDir, "prisma", "migrations"),
  });
  const license = await startService("license", join(licenseDir, "dist", "main.js"), 18082, {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    SIGNING_KEY_SECRET: "bench-signing-key-secret-0123456789abcdef",
    MAIL_DIR: join(root, ".dev", "bench-mail"),
  });
  started.push(license);
  const created = await fetch(`${license.url}/admin/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ name: "Benchmark", email: "bench@arena.localhost", edition: "advanced" }),
  });
  if (created.status !== 201)
    throw new Error(`could not create a license: ${created.status} ${await created.text()}`);
  const { licenseKey } = (await created.json()) as { licenseKey: string };
  const matchmaker = await startService(
    "matchmaker",
    join(root, "apps", "matchmaker", "dist", "main.js"),
    18000,
    { LICENSE_KEY: licenseKey, LICENSE_URL: license.url },
    "/readyz",
    NODE_FLAGS,
  );
  started.push(matchmaker);
  return { license, matchmaker, licenseKey };
}
