import { parseArgs } from "node:util";
import {
  USER_ROLES,
  type UserRole,
  validateCreateTenantRequest,
  validateCreateUserRequest,
} from "@arena/contracts";
import { type AppError, validateOrThrow } from "@arena/service-kit";
import { rotatedSigningKey, type SigningKeys } from "@arena/signing-keys";
import type { TenantAdmin } from "./tenant-admin.js";

export const USAGE = `Usage: node dist/cli.js <command> [options]   (DATABASE_URL selects the database)
  create-tenant <tenantId> --name <name>
  list-tenants
  create-client <tenantId> --name <name>      prints the clientId games send as ClientId
  list-clients <tenantId>
  create-user <tenantId> --username <name> --role server|admin
                                              the password is read from standard input (one line)
  list-users <tenantId>
  disable-user <tenantId> <username>
  enable-user <tenantId> <username>
  revoke-refresh-tokens <tenantId> <username>
  clear-login-lock <tenantId> <username>      lifts the user's failed-login locks (REDIS_URL, REDIS_KEY_PREFIX)
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
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      name: { type: "string" },
      username: { type: "string" },
      role: { type: "string" },
      "revoke-previous": { type: "boolean" },
    },
  });
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

/** The message the CLI prints for an AppError: what the API's problem detail would say. */
export function cliMessage(err: AppError): string {
  const fields = (err.errors ?? []).map((e) => `\n  ${e.pointer || "(input)"} ${e.detail}`).join("");
  return `${err.detail}${fields}`;
}
