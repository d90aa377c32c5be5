import { createHash } from "node:crypto";

/**
 * Each tenant is a Cognito user pool to its clients: its id is `<region>_<name>`, what a Cognito
 * client (amazon-cognito-identity-js, Amplify, ...) configures as `UserPoolId`. The client hashes
 * the name part into the SRP password proof, so the name is stored with the tenant and never
 * changes; the region is the gateway's setting (`USER_POOL_REGION`) and only decorates the id.
 */
export interface UserPools {
  region: string;
}

/**
 * The name part of a tenant's user pool id: the first 12 hex digits of
 * SHA-256("arena-user-pool:" ‖ tenant id). The migration that added the column wrote the same for
 * the tenants that existed then (keep the two alike).
 */
export function userPoolName(tenantId: string): string {
  return createHash("sha256").update(`arena-user-pool:${tenantId}`, "utf8").digest("hex").slice(0, 12);
}

/** The pool id a client configures. */
export const userPoolId = (pools: UserPools, name: string) => `${pools.region}_${name}`;

/** The stored name, or (a tenant created by an older gateway) the one derived from its id. */
export const poolNameOf = (row: { id: string; userPoolName: string | null }) =>
  row.userPoolName ?? userPoolName(row.id);
