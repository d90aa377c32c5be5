import { join } from "node:path";
import { migrateDatabase } from "@arena/database";
import { type PlatformWiring, NODE_FLAGS as PRODUCTION_NODE_FLAGS } from "../../scripts/platform-wiring.mjs";
import { BENCH_PORTS, BENCH_SECRETS, startApp } from "./bench-platform.js";
import { nodeFlags, type Service } from "./processes.js";

/**
 * The matchmaker's production V8 flags (its image and `npm start` run it with them); the echo gets
 * the same. `BENCH_MATCHMAKER_FLAGS` replaces them, to measure other flags against the same floor.
 */
export const NODE_FLAGS = nodeFlags("BENCH_MATCHMAKER_FLAGS", PRODUCTION_NODE_FLAGS.matchmaker.join(" "));

/**
 * Starts the real license service and a matchmaker licensed by a key it issues; `started`
 * collects them for cleanup. The wiring returned holds the key, for more matchmakers.
 */
export async function startLicensedMatchmaker(
  root: string,
  started: Service[],
): Promise<{ license: Service; matchmaker: Service; licenseKey: string; wiring: PlatformWiring }> {
  const licenseDir = join(root, "apps", "license");
  const databaseUrl =
    process.env.BENCH_LICENSE_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/arena_bench_license";
  await migrateDatabase({
    databaseUrl,
    schemaPath: join(licenseDir, "prisma", "schema.prisma"),
    migrationsDir: join(licenseDir, "prisma", "migrations"),
  });
  const wiring: PlatformWiring = {
    ports: { license: BENCH_PORTS.license, matchmaker: BENCH_PORTS.matchmaker },
    secrets: { ...BENCH_SECRETS },
    databaseUrls: { license: databaseUrl },
    mailDir: join(root, ".dev", "bench-mail"),
  };
  const license = await startApp(root, "license", wiring);
  started.push(license);
  const created = await fetch(`${license.url}/admin/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_SECRETS.adminToken}` },
    body: JSON.stringify({ name: "Benchmark", email: "bench@arena.localhost", edition: "advanced" }),
  });
  if (created.status !== 201)
    throw new Error(`could not create a license: ${created.status} ${await created.text()}`);
  const { licenseKey } = (await created.json()) as { licenseKey: string };
  wiring.secrets.licenseKey = licenseKey;
  const matchmaker = await startApp(root, "matchmaker", wiring, { flags: NODE_FLAGS });
  started.push(matchmaker);
  return { license, matchmaker, licenseKey, wiring };
}
