import { BODY_ERRORS, type SchemaName } from "@arena/contracts";
import { codesOfStatuses, problemResponses } from "./problem-responses.js";
import type { RequestBodies } from "./request-bodies.js";

type Json = Record<string, unknown>;

const json = (name: SchemaName) => ({
  content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
});

const adminSecurity = [{ adminToken: [] }];
const tenantId = {
  name: "tenantId",
  in: "path",
  required: true,
  description: "The tenant's id",
  schema: { type: "string" },
};
const username = {
  name: "username",
  in: "path",
  required: true,
  description: "The user's name",
  schema: { type: "string" },
};

/**
 * What the admin token's guard answers on every admin route, besides the operation's own: a wrong
 * token (401), too many wrong ones from an address (429), Redis unreachable (503), and the HTTP
 * parser's 431.
 */
const GUARD_ERRORS = [401, 429, 431, 503];

/** One operation of the operator's admin API (`Authorization: Bearer $ADMIN_TOKEN`). */
function adminOperation(
  bodies: RequestBodies,
  op: {
    operationId: string;
    summary: string;
    parameters?: readonly Json[];
    body?: SchemaName;
    /** The body may be left out (`{}` then). */
    bodyOptional?: boolean;
    /** The success answer; without a schema, one with no body (204). */
    answer: [status: number, description: string, schema?: SchemaName];
    errors: readonly number[];
  },
): Json {
  const [status, description, schema] = op.answer;
  const required = op.bodyOptional !== true;
  const statuses = [...GUARD_ERRORS, ...(op.body ? BODY_ERRORS : []), ...op.errors];
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: ["admin"],
    security: adminSecurity,
    ...(op.parameters ? { parameters: op.parameters } : {}),
    ...(op.body ? { requestBody: bodies.ref(op.body, { required }) } : {}),
    responses: {
      [String(status)]: { description, ...(schema ? json(schema) : {}) },
      ...problemResponses(codesOfStatuses([...new Set(statuses)].sort((x, y) => x - y))),
    },
  };
}

/** The operator's admin API: tenants and their app clients, users, signing keys. */
export function adminPaths(bodies: RequestBodies): Json {
  return { ...tenantAdminPaths(bodies), ...userAdminPaths(bodies) };
}

/** Tenants and their app clients, and the signing keys. */
function tenantAdminPaths(bodies: RequestBodies): Json {
  return {
    "/admin/tenants": {
      post: adminOperation(bodies, {
        operationId: "createTenant",
        summary: "Create a tenant",
        body: "CreateTenantRequest",
        answer: [201, "Created", "Tenant"],
        errors: [400, 409],
      }),
      get: adminOperation(bodies, {
        operationId: "listTenants",
        summary: "List tenants",
        answer: [200, "OK", "TenantList"],
        errors: [],
      }),
    },
    ...tenantLimitPaths(bodies),
    "/admin/tenants/{tenantId}/clients": {
      post: adminOperation(bodies, {
        operationId: "createClient",
        summary: "Create an app client (its id is the ClientId of InitiateAuth)",
        parameters: [tenantId],
        body: "CreateClientRequest",
        answer: [201, "Created", "CreatedClient"],
        errors: [400, 404],
      }),
      get: adminOperation(bodies, {
        operationId: "listClients",
        summary: "List a tenant's app clients",
        parameters: [tenantId],
        answer: [200, "OK", "ClientList"],
        errors: [400, 404],
      }),
    },
    "/admin/signing-keys/rotate": {
      post: adminOperation(bodies, {
        operationId: "rotateSigningKey",
        summary:
          "Make a new token signing key active; the old one stays published until its tokens expire, unless `revokePrevious` revokes every earlier key at once",
        body: "RotateSigningKeyRequest",
        bodyOptional: true,
        answer: [201, "Created", "RotatedSigningKey"],
        errors: [400],
      }),
    },
  };
}

/** A tenant's users: create, list, disable, revoke refresh tokens, lift login locks. */
function userAdminPaths(bodies: RequestBodies): Json {
  return {
    "/admin/tenants/{tenantId}/users": {
      post: adminOperation(bodies, {
        operationId: "createUser",
        summary: "Create a user (role server or admin); usernames are unique across tenants",
        parameters: [tenantId],
        body: "CreateUserRequest",
        answer: [201, "Created", "User"],
        errors: [400, 404, 409],
      }),
      get: adminOperation(bodies, {
        operationId: "listUsers",
        summary: "List a tenant's users",
        parameters: [tenantId],
        answer: [200, "OK", "UserList"],
        errors: [400, 404],
      }),
    },
    "/admin/tenants/{tenantId}/users/{username}": {
      patch: adminOperation(bodies, {
        operationId: "updateUser",
        summary: "Disable or enable a user",
        parameters: [tenantId, username],
        body: "UpdateUserRequest",
        answer: [200, "OK", "User"],
        errors: [400, 404],
      }),
    },
    "/admin/tenants/{tenantId}/users/{username}/refresh-tokens": {
      delete: adminOperation(bodies, {
        operationId: "revokeRefreshTokens",
        summary: "Revoke every refresh token of a user",
        parameters: [tenantId, username],
        answer: [200, "OK", "RevokedRefreshTokens"],
        errors: [400, 404],
      }),
    },
    "/admin/tenants/{tenantId}/users/{username}/login-lock": {
      delete: adminOperation(bodies, {
        operationId: "clearLoginLock",
        summary: "Lift a user's failed-login locks and waits, at every address",
        parameters: [tenantId, username],
        answer: [204, "Cleared"],
        errors: [400, 404],
      }),
    },
  };
}

/** A tenant and its own limits. */
function tenantLimitPaths(bodies: RequestBodies): Json {
  return {
    "/admin/tenants/{tenantId}": {
      get: adminOperation(bodies, {
        operationId: "getTenant",
        summary: "A tenant with its limits in force (its own, else the gateway's defaults)",
        parameters: [tenantId],
        answer: [200, "OK", "TenantDetails"],
        errors: [400, 404],
      }),
      patch: adminOperation(bodies, {
        operationId: "updateTenant",
        summary:
          "Set a tenant's own limits: requests per window, the window, WebSocket connections per replica (null: back to the default; in force on every replica within TENANT_LIMITS_CACHE_MS)",
        parameters: [tenantId],
        body: "UpdateTenantRequest",
        answer: [200, "OK", "TenantDetails"],
        errors: [400, 404],
      }),
    },
  };
}
