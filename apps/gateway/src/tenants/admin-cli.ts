import { parseArgs } from "node:util";
import {
  type TenantDetails,
  USER_ROLES,
  type UserRole,
  validateCreateTenantRequest,
  validateCreateUserRequest,
  validateUpdateTenantRequest,
} from "@arena/contracts";
import { type AppError, validateOrThrow } from "@arena/service-kit";
import { rotatedSigningKey, type SigningKeys } from "@arena/signing-keys";
import type { TenantAdmin } from "./tenant-admin.js";

export const USAGE = `Usage: node dist/cli.js <command> [options]   (DATABASE_URL selects the database)
  create-tenant <tenantId> --name <name>
  list-tenants
  show-tenant <tenantId>                      the tenant with its limits in force and its own
  set-tenant-limits <tenantId> [--requests N] [--window-seconds S] [--websocket-connections C]
                                              each a number, or "default" for the gateway's setting
  create-client <tenantId> --name <name>      prints the clientId games send as ClientId
  list-clients <tenantId>
  create-user <tenantId> --username <name> --role server|admin
                                              the password is read from standard input (one line)
  list-users <tenantId>
  disable-user <tenantId> <username>
  enable-user <tenantId> <username>
  revoke-refresh-tokens <tenantId> <username>
  clear-login-lock <tenantId> <username>      lifts the user's failed-login locks (REDIS_URL or REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX)
  rotate-signing-key [--revoke-previous]      needs SIGNING_KEY_SECRET; --revoke-previous: an emergency
                                              rotation, every earlier key's tokens are refused at once`;

export interface AdminCliDeps {
  admin: TenantAdmin;
  /** Only rotate-signing-key needs it; undefined when SIGNING_KEY_SECRET is not set. */
  signingKeys: (() => SigningKeys) | undefined;
  readPassword: () => Promise<string>;
  print: (value: unknown) => void;
}

/** A usage mistake: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

/**
 * The admin CLI: the same TenantAdmin operations as the admin API, so both validate and answer
 * alike. Throws UsageError for a bad command line and AppError for what the API would answer 4xx.
 */
export async function runAdminCli(argv: readonly string[], deps: AdminCliDeps): Promise<void> {
  const { positionals, values } = parseCommandLine(argv);
  const [command, first, second] = positionals;
  const need = (value: string | undefined, what: string): string => {
    if (value === undefined || value === "") throw new UsageError(`${command} needs ${what}`);
    return value;
  };
  const { admin, print } = deps;
  switch (command) {
    case "create-tenant": {
      const body = validateOrThrow(validateCreateTenantRequest, {
        tenantId: need(first, "a tenant id"),
        name: need(values.name, "--name"),
      });
      print(await admin.createTenant(body));
      return;
    }
    case "list-tenants":
      print({ tenants: await admin.listTenants() });
      return;
    case "show-tenant":
    case "set-tenant-limits":
      print(await tenantCommand(command, need(first, "a tenant id"), values, admin));
      return;
    case "create-client":
      print(await admin.createClient(need(first, "a tenant id"), { name: need(values.name, "--name") }));
      return;
    case "list-clients":
      print({ clients: await admin.listClients(need(first, "a tenant id")) });
      return;
    case "create-user": {
      const tenantId = need(first, "a tenant id");
      const role = need(values.role, "--role");
      if (!USER_ROLES.includes(role as UserRole))
        throw new UsageError(`--role must be one of ${USER_ROLES.join(", ")}`);
      const body = validateOrThrow(validateCreateUserRequest, {
        username: need(values.username, "--username"),
        password: await deps.readPassword(),
        role,
      });
      print(await admin.createUser(tenantId, body));
      return;
    }
    case "list-users":
      print({ users: await admin.listUsers(need(first, "a tenant id")) });
      return;
    case "disable-user":
    case "enable-user":
      print(
        await admin.setDisabled(
          need(first, "a tenant id"),
          need(second, "a username"),
          command === "disable-user",
        ),
      );
      return;
    case "revoke-refresh-tokens":
      print({
        revoked: await admin.revokeRefreshTokens(need(first, "a tenant id"), need(second, "a username")),
      });
      return;
    case "clear-login-lock": {
      const tenantId = need(first, "a tenant id");
      const username = await admin.clearLoginLock(tenantId, need(second, "a username"));
      print({ tenantId, username, loginLock: "cleared" });
      return;
    }
    case "rotate-signing-key": {
      if (!deps.signingKeys) throw new UsageError("rotate-signing-key needs SIGNING_KEY_SECRET");
      const revokePrevious = values["revoke-previous"] === true;
      print(rotatedSigningKey(await deps.signingKeys().rotate({ revokePrevious })));
      return;
    }
    default:
      throw new UsageError(command === undefined ? "a command is required" : `unknown command "${command}"`);
  }
}

/** The command line's words and options; a malformed one (`--requests -5`) is a usage mistake. */
function parseCommandLine(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        name: { type: "string" },
        username: { type: "string" },
        role: { type: "string" },
        "revoke-previous": { type: "boolean" },
        ...LIMIT_OPTIONS,
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The options of set-tenant-limits, and the limit each sets. */
const LIMIT_OPTIONS = {
  requests: { type: "string" },
  "window-seconds": { type: "string" },
  "websocket-connections": { type: "string" },
} as const;
const LIMIT_OF_OPTION = {
  requests: "requests",
  "window-seconds": "windowSeconds",
  "websocket-connections": "webSocketConnections",
} as const;

/** show-tenant, or set-tenant-limits from its options: the tenant with its limits. */
async function tenantCommand(
  command: "show-tenant" | "set-tenant-limits",
  tenantId: string,
  values: Partial<Record<keyof typeof LIMIT_OPTIONS, string | boolean>>,
  admin: TenantAdmin,
): Promise<TenantDetails> {
  if (command === "show-tenant") return admin.getTenant(tenantId);
  const body = validateOrThrow(validateUpdateTenantRequest, { limits: limitsOf(values) });
  if (Object.keys(body.limits).length === 0) {
    const options = Object.keys(LIMIT_OPTIONS).map((o) => `--${o}`);
    throw new UsageError(`set-tenant-limits needs at least one of ${options.join(", ")}`);
  }
  return admin.updateTenant(tenantId, body);
}

/**
 * The `limits` of an update from the command line: "default" is null (back to the gateway's
 * setting), a whole number is itself, anything else is passed on for the schema to name.
 */
function limitsOf(
  values: Partial<Record<keyof typeof LIMIT_OPTIONS, string | boolean>>,
): Record<string, unknown> {
  const limits: Record<string, unknown> = {};
  for (const [option, limit] of Object.entries(LIMIT_OF_OPTION)) {
    const value = values[option as keyof typeof LIMIT_OPTIONS];
    if (value === undefined) continue;
    limits[limit] =
      value === "default" ? null : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  }
  return limits;
}

/** The message the CLI prints for an AppError: what the API's problem detail would say. */
export function cliMessage(err: AppError): string {
  const fields = (err.errors ?? []).map((e) => `\n  ${e.pointer || "(input)"} ${e.detail}`).join("");
  return `${err.detail}${fields}`;
}
