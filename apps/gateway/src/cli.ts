import { closeRedis, createRedis, type Redis, redisKeys } from "@arena/redis";
import { AppError, createLogger, loadConfig, readConfigOrExit } from "@arena/service-kit";
import { TenantLimits, tenantLimitDefaults } from "./access/tenant-limits.js";
import { systemClock } from "./clock.js";
import { gatewayConfigSchema } from "./config.js";
import { createDatabaseClient } from "./db.js";
import { IdentityStore } from "./identity/identity-store.js";
import { loginLocks } from "./identity/login-throttle.js";
import { gatewaySigningKeys } from "./identity/signing-key-store.js";
import { assertSchemaIsCurrent } from "./schema-version.js";
import { cliMessage, runAdminCli, USAGE, UsageError } from "./tenants/admin-cli.js";
import { TenantAdmin } from "./tenants/tenant-admin.js";

// The same schema (and defaults) as the service, limited to what the CLI uses.
const CLI_SETTINGS = [
  "DATABASE_URL",
  "PASSWORD_SCRYPT_LOG_N",
  // The tenants' user pool ids (create-tenant, list-tenants, show-tenant).
  "USER_POOL_REGION",
  "SIGNING_KEY_SECRET",
  "SIGNING_KEY_ROTATION_DAYS",
  "TOKEN_SIGNING_ALGORITHM",
  // The defaults of a tenant's limits, so that show-tenant reports the limits in force.
  "TENANT_RATE_LIMIT",
  "TENANT_RATE_WINDOW_SECONDS",
  "WS_MAX_CONNECTIONS_PER_TENANT",
  // clear-login-lock
  "REDIS_URL",
  "REDIS_CLUSTER_NODES",
  "REDIS_KEY_PREFIX",
] as const;
const cliConfigSchema = {
  type: "object",
  properties: Object.fromEntries(
    CLI_SETTINGS.map((name) => [name, gatewayConfigSchema.properties[name]]),
  ) as Pick<typeof gatewayConfigSchema.properties, (typeof CLI_SETTINGS)[number]>,
} as const;

function fail(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("Password: ");
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0] ?? "";
}

const config = readConfigOrExit("gateway-cli", () => loadConfig(cliConfigSchema));
const db = createDatabaseClient(config.DATABASE_URL);
// Only clear-login-lock needs Redis: connected on first use, so the other commands never wait for it.
let redis: Redis | undefined;
const locks = {
  clear(tenantId: string, username: string) {
    redis ??= createRedis(config, { connectionName: "gateway-cli", queueWhileDisconnected: true });
    return loginLocks(redis, redisKeys(config.REDIS_KEY_PREFIX)).clear(tenantId, username);
  },
};
try {
  await assertSchemaIsCurrent(db);
  const identity = new IdentityStore(db, systemClock, { region: config.USER_POOL_REGION });
  const secret = config.SIGNING_KEY_SECRET;
  await runAdminCli(process.argv.slice(2), {
    admin: new TenantAdmin(
      identity,
      { logN: config.PASSWORD_SCRYPT_LOG_N },
      new TenantLimits({ db, clock: systemClock, defaults: tenantLimitDefaults(config), cacheMs: 0 }),
      locks,
    ),
    signingKeys:
      secret === undefined
        ? undefined
        : () =>
            gatewaySigningKeys({
              db,
              clock: systemClock,
              logger: createLogger({ name: "gateway-cli", level: "warn" }),
              secret,
              rotationDays: config.SIGNING_KEY_ROTATION_DAYS,
              algorithm: config.TOKEN_SIGNING_ALGORITHM,
            }),
    readPassword,
    print: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  });
} catch (err) {
  if (err instanceof UsageError) fail(`${err.message}\n${USAGE}`, 2);
  if (err instanceof AppError) fail(`gateway-cli: ${cliMessage(err)}`, 1);
  throw err;
} finally {
  await db.$disconnect();
  if (redis) await closeRedis(redis);
}
