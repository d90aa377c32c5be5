import type { TenantDetails, UpdateTenantRequest } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { Clock } from "../clock.js";
import type { GatewayConfig } from "../config.js";
import type { Database } from "../db.js";
import { TtlCache } from "./ttl-cache.js";

/** A tenant with its limits, as this module reads it (the admin adds the user pool id). */
export type TenantLimitDetails = Omit<TenantDetails, "userPoolId">;
/** A tenant's limits in force. */
export type TenantLimitValues = TenantDetails["limits"];
/** The limits a tenant has of its own; null: the default. */
export type TenantLimitOverrides = TenantDetails["overrides"];

export interface TenantLimitsOptions {
  db: Database;
  clock: Clock;
  /** What a tenant without a limit of its own gets: the gateway's settings. */
  defaults: TenantLimitValues;
  /** How long a replica uses what it read of a tenant's limits (0: read every time). */
  cacheMs: number;
}

/** A tenant's limits where it has none of its own: the service's settings (the CLI's too, to show them). */
export function tenantLimitDefaults(
  config: Pick<
    GatewayConfig,
    "TENANT_RATE_LIMIT" | "TENANT_RATE_WINDOW_SECONDS" | "WS_MAX_CONNECTIONS_PER_TENANT"
  >,
): TenantLimitValues {
  return {
    requests: config.TENANT_RATE_LIMIT,
    windowSeconds: config.TENANT_RATE_WINDOW_SECONDS,
    webSocketConnections: config.WS_MAX_CONNECTIONS_PER_TENANT,
  };
}

const SELECT = {
  id: true,
  name: true,
  createdAt: true,
  requestLimit: true,
  requestWindowSeconds: true,
  webSocketConnectionLimit: true,
} as const;

type TenantRow = {
  id: string;
  name: string;
  createdAt: Date;
  requestLimit: number | null;
  requestWindowSeconds: number | null;
  webSocketConnectionLimit: number | null;
};

/**
 * Each tenant's limits: the request budget (REST calls and WebSocket messages) and its window, and
 * its WebSocket connections per replica. An operator may set each for a tenant (stored in the
 * gateway's database); a limit it has not set is the gateway's default. What the enforcement reads
 * is cached on each replica for `cacheMs`, so a change reaches every replica within that time
 * (this one at once).
 */
export class TenantLimits {
  private readonly cache: TtlCache<TenantLimitValues>;

  constructor(private readonly options: TenantLimitsOptions) {
    this.cache = new TtlCache(options.clock, options.cacheMs);
  }

  /** The limits in force for a tenant (the defaults for one not stored); a 503 when they cannot be read. */
  inForce(tenantId: string): Promise<TenantLimitValues> {
    return this.cache.get(tenantId, async () => {
      let row: TenantRow | null;
      try {
        row = await this.options.db.tenant.findUnique({ where: { id: tenantId }, select: SELECT });
      } catch (err) {
        throw new AppError("SERVICE_UNAVAILABLE", "The tenant's limits could not be read; try again", {
          cause: err,
          headers: { "Retry-After": "1" },
        });
      }
      return row === null ? this.options.defaults : this.inForceOf(overridesOf(row));
    });
  }

  /** The tenant with its limits, read now; undefined when there is no such tenant. */
  async details(tenantId: string): Promise<TenantLimitDetails | undefined> {
    const row = await this.options.db.tenant.findUnique({ where: { id: tenantId }, select: SELECT });
    return row === null ? undefined : this.detailsOf(row);
  }

  /**
   * Sets the limits given (null: back to the default) and keeps the others; the tenant with its
   * limits now, or undefined when there is no such tenant.
   */
  async update(
    tenantId: string,
    limits: UpdateTenantRequest["limits"],
  ): Promise<TenantLimitDetails | undefined> {
    // Prisma leaves a field given as undefined unchanged, and sets one given as null to NULL.
    const data = {
      requestLimit: limits.requests,
      requestWindowSeconds: limits.windowSeconds,
      webSocketConnectionLimit: limits.webSocketConnections,
    };
    const { count } = await this.options.db.tenant.updateMany({ where: { id: tenantId }, data });
    this.cache.delete(tenantId);
    return count === 0 ? undefined : this.details(tenantId);
  }

  private inForceOf(overrides: TenantLimitOverrides): TenantLimitValues {
    const { defaults } = this.options;
    return {
      requests: overrides.requests ?? defaults.requests,
      windowSeconds: overrides.windowSeconds ?? defaults.windowSeconds,
      webSocketConnections: overrides.webSocketConnections ?? defaults.webSocketConnections,
    };
  }

  private detailsOf(row: TenantRow): TenantLimitDetails {
    const overrides = overridesOf(row);
    return {
      tenantId: row.id,
      name: row.name,
      createdAt: row.createdAt.toISOString(),
      limits: this.inForceOf(overrides),
      overrides,
    };
  }
}

function overridesOf(row: TenantRow): TenantLimitOverrides {
  return {
    requests: row.requestLimit,
    windowSeconds: row.requestWindowSeconds,
    webSocketConnections: row.webSocketConnectionLimit,
  };
}
