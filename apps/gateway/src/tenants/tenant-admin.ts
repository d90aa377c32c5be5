import type {
  CreateClientRequest,
  CreatedClient,
  CreateTenantRequest,
  CreateUserRequest,
  Tenant,
  TenantDetails,
  UpdateTenantRequest,
  User,
} from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { TenantLimitDetails, TenantLimits } from "../access/tenant-limits.js";
import { passwordCredentials } from "../identity/credentials.js";
import type { IdentityStore } from "../identity/identity-store.js";
import type { LoginLocks } from "../identity/login-throttle.js";
import type { ScryptCost } from "../identity/passwords.js";

/**
 * What the admin API and the CLI do, once: each operation answers its result or throws the
 * AppError both of them report (the API as a problem, the CLI as a message and exit code).
 */
export class TenantAdmin {
  constructor(
    private readonly identity: IdentityStore,
    private readonly passwordCost: ScryptCost,
    /** Each tenant's own limits and the defaults; a change here is in force on this replica at once. */
    private readonly limits: TenantLimits,
    private readonly loginLocks: LoginLocks,
    /** Told when a user is disabled, so this replica refuses its tokens at once. */
    private readonly onUserChanged: (userId: string) => void = () => {},
  ) {}

  async createTenant({ tenantId, name }: CreateTenantRequest): Promise<Tenant> {
    const tenant = await this.identity.createTenant(tenantId, name);
    if (tenant === "exists") throw new AppError("CONFLICT", `Tenant ${tenantId} already exists`);
    return tenant;
  }

  listTenants(): Promise<Tenant[]> {
    return this.identity.listTenants();
  }

  /** The tenant with its user pool id, the limits in force and those of its own. */
  async getTenant(tenantId: string): Promise<TenantDetails> {
    return this.withUserPool(tenantId, await this.limits.details(tenantId));
  }

  /** Sets the limits given (null: back to the default), keeps the others; answers as getTenant. */
  async updateTenant(tenantId: string, { limits }: UpdateTenantRequest): Promise<TenantDetails> {
    return this.withUserPool(tenantId, await this.limits.update(tenantId, limits));
  }

  private async withUserPool(
    tenantId: string,
    details: TenantLimitDetails | undefined,
  ): Promise<TenantDetails> {
    const userPoolId = details && (await this.identity.userPoolId(tenantId));
    if (!details || userPoolId === undefined) throw noTenant(tenantId);
    const { tenantId: id, name, ...rest } = details;
    return { tenantId: id, name, userPoolId, ...rest };
  }

  async createClient(tenantId: string, { name }: CreateClientRequest): Promise<CreatedClient> {
    const client = await this.identity.createClient(tenantId, name);
    if (!client) throw noTenant(tenantId);
    return client;
  }

  async listClients(tenantId: string): Promise<CreatedClient[]> {
    if (!(await this.identity.tenantExists(tenantId))) throw noTenant(tenantId);
    return this.identity.listClients(tenantId);
  }

  async createUser(tenantId: string, { username, password, role }: CreateUserRequest): Promise<User> {
    // The SRP verifier hashes the tenant's user pool name: no pool, no tenant.
    const poolName = await this.identity.userPoolName(tenantId);
    if (poolName === undefined) throw noTenant(tenantId);
    const credentials = await passwordCredentials(password, { username, poolName }, this.passwordCost);
    const user = await this.identity.createUser(tenantId, { username, role, ...credentials });
    if (user === "no-tenant") throw noTenant(tenantId);
    if (user === "username-taken") {
      // Usernames are unique across tenants; the answer does not say which tenant holds it.
      throw new AppError("CONFLICT", `Username ${username} is taken`);
    }
    return user;
  }

  async listUsers(tenantId: string): Promise<User[]> {
    if (!(await this.identity.tenantExists(tenantId))) throw noTenant(tenantId);
    return this.identity.listUsers(tenantId);
  }

  async setDisabled(tenantId: string, username: string, disabled: boolean): Promise<User> {
    const updated = await this.identity.setDisabled(tenantId, username, disabled);
    if (!updated) throw noUser(tenantId, username);
    this.onUserChanged(updated.id);
    const { id: _id, ...user } = updated;
    return user;
  }

  async revokeRefreshTokens(tenantId: string, username: string): Promise<number> {
    const revoked = await this.identity.revokeRefreshTokens(tenantId, username);
    if (revoked === undefined) throw noUser(tenantId, username);
    return revoked;
  }

  /** Lifts every login lock and wait of the tenant's user, at every address: its stored username. */
  async clearLoginLock(tenantId: string, username: string): Promise<string> {
    const stored = await this.identity.tenantUsername(tenantId, username);
    if (stored === undefined) throw noUser(tenantId, username);
    await this.loginLocks.clear(tenantId, stored);
    return stored;
  }
}

const noTenant = (tenantId: string) => new AppError("NOT_FOUND", `No tenant ${tenantId}`);
const noUser = (tenantId: string, username: string) =>
  new AppError("NOT_FOUND", `Tenant ${tenantId} has no user ${username}`);
