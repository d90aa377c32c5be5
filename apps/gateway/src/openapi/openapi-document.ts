import {
  COMMON_HOSTED_ERRORS,
  errorCodeInfo,
  HOSTED_OPERATIONS,
  type HostedOperation,
  MESSAGE_ACTIONS,
  openApiComponentSchemas,
  type SchemaName,
} from "@arena/contracts";

type Json = Record<string, unknown>;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: SchemaName, type = "application/json") => ({
  content: { [type]: { schema: ref(name) } },
});

const STATUS_TEXT: Record<number, string> = Object.fromEntries(
  Object.values(errorCodeInfo).map(({ status, title }) => [status, title]),
);

function problems(statuses: readonly number[]): Json {
  return Object.fromEntries(
    [...new Set(statuses)]
      .sort()
      .map((status) => [
        String(status),
        { description: STATUS_TEXT[status] ?? "Error", ...json("Problem", "application/problem+json") },
      ]),
  );
}

function hostedOperation(op: HostedOperation): Json {
  const parameters: Json[] = [
    ...Object.entries(op.params).map(([name, schema]) => ({ name, in: "path", required: true, schema })),
    ...Object.entries(op.query ?? {}).map(([name, schema]) => ({
      name,
      in: "query",
      required: false,
      schema,
    })),
  ];
  if (op.prefer) {
    parameters.push({
      name: "Prefer",
      in: "header",
      required: false,
      description: `\`return=representation\` answers ${op.prefer.representation} with a body instead of ${op.prefer.plain}`,
      schema: { type: "string", enum: ["return=representation", "return=minimal"] },
    });
  }
  const responses: Json = {};
  for (const [status, schema] of Object.entries(op.answers)) {
    responses[status] =
      schema === null ? { description: "No content" } : { description: "OK", ...json(schema) };
  }
  Object.assign(responses, problems([...COMMON_HOSTED_ERRORS, ...op.errors]));
  const roles = op.roles.join(" or ");
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `Role: ${roles}.${op.action ? ` WebSocket action: \`${op.action}\`.` : ""}`,
    tags: [op.tag],
    security: [{ idToken: [] }],
    parameters,
    ...(op.body ? { requestBody: { required: op.optionalBody !== true, ...json(op.body) } } : {}),
    responses,
  };
}

const adminSecurity = [{ adminToken: [] }];
const tenantId = { name: "tenantId", in: "path", required: true, schema: { type: "string" } };
const username = { name: "username", in: "path", required: true, schema: { type: "string" } };

/** The gateway's own routes: login, keys, the WebSocket, the operator's admin API. */
function gatewayPaths(): Json {
  return { ...identityPaths(), ...adminPaths() };
}

/** Login, the token keys and the WebSocket. */
function identityPaths(): Json {
  return {
    "/auth": {
      post: {
        operationId: "initiateAuth",
        summary: "Log in (Cognito InitiateAuth: USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH)",
        description:
          "Wire-compatible with Cognito: header `X-Amz-Target: AWSCognitoIdentityProviderService.InitiateAuth`; the AWS SDK with its endpoint set to `<gateway>/auth` posts to `/auth/`, which is served too. Errors are Cognito's (`__type`, `message`, header `x-amzn-errortype`), not problems.",
        tags: ["identity"],
        parameters: [
          {
            name: "X-Amz-Target",
            in: "header",
            required: true,
            schema: { type: "string", const: "AWSCognitoIdentityProviderService.InitiateAuth" },
          },
        ],
        requestBody: { required: true, ...json("InitiateAuthRequest", "application/x-amz-json-1.1") },
        responses: {
          "200": { description: "Tokens", ...json("InitiateAuthResponse", "application/x-amz-json-1.1") },
          "400": {
            description:
              "NotAuthorizedException, InvalidParameterException, ResourceNotFoundException, TooManyRequestsException or UnknownOperationException",
            ...json("CognitoError", "application/x-amz-json-1.1"),
          },
          "500": {
            description: "InternalErrorException",
            ...json("CognitoError", "application/x-amz-json-1.1"),
          },
        },
      },
    },
    "/.well-known/jwks.json": {
      get: {
        operationId: "getJwks",
        summary:
          "The public keys that sign IdTokens and AccessTokens (RS256, or EdDSA), old ones until their tokens expire",
        tags: ["identity"],
        responses: { "200": { description: "JSON Web Key Set" } },
      },
    },
    "/ws": {
      get: {
        operationId: "openWebSocket",
        summary: "The WebSocket message transport",
        description: `Upgrade with \`Authorization: <IdToken>\` or \`?authorization=<IdToken>\`. Messages \`{action, messageId, payload}\`; actions: ${MESSAGE_ACTIONS.map((a) => `\`${a}\``).join(", ")}. Schemas: ClientMessage, ServerResponse, ServerErrorMessage, MatchSuggestionMessage, BackfillingMatchSuggestionMessage, PlayersRemovedMessage, KeepAliveMessage.`,
        tags: ["websocket"],
        parameters: [{ name: "authorization", in: "query", required: false, schema: { type: "string" } }],
        responses: { "101": { description: "Switching protocols" }, ...problems([401]) },
      },
    },
  };
}

/** One operation of the operator's admin API (`Authorization: Bearer $ADMIN_TOKEN`). */
function adminOperation(op: {
  operationId: string;
  summary: string;
  parameters?: readonly Json[];
  body?: SchemaName;
  /** The body may be left out (`{}` then). */
  bodyOptional?: boolean;
  /** The success answer; without a schema, one with no body (204). */
  answer: [status: number, description: string, schema?: SchemaName];
  errors: readonly number[];
}): Json {
  const [status, description, schema] = op.answer;
  const required = op.bodyOptional !== true;
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: ["admin"],
    security: adminSecurity,
    ...(op.parameters ? { parameters: op.parameters } : {}),
    ...(op.body ? { requestBody: { required, ...json(op.body) } } : {}),
    responses: {
      [String(status)]: { description, ...(schema ? json(schema) : {}) },
      ...problems(op.errors),
    },
  };
}

const adminErrors = [400, 401, 404, 409];

/** The operator's admin API: tenants and their app clients, users, signing keys. */
function adminPaths(): Json {
  return { ...tenantAdminPaths(), ...userAdminPaths() };
}

/** Tenants and their app clients, and the signing keys. */
function tenantAdminPaths(): Json {
  return {
    "/admin/tenants": {
      post: adminOperation({
        operationId: "createTenant",
        summary: "Create a tenant",
        body: "CreateTenantRequest",
        answer: [201, "Created", "Tenant"],
        errors: adminErrors,
      }),
      get: adminOperation({
        operationId: "listTenants",
        summary: "List tenants",
        answer: [200, "OK", "TenantList"],
        errors: [401],
      }),
    },
    ...tenantLimitPaths(),
    "/admin/tenants/{tenantId}/clients": {
      post: adminOperation({
        operationId: "createClient",
        summary: "Create an app client (its id is the ClientId of InitiateAuth)",
        parameters: [tenantId],
        body: "CreateClientRequest",
        answer: [201, "Created", "CreatedClient"],
        errors: adminErrors,
      }),
      get: adminOperation({
        operationId: "listClients",
        summary: "List a tenant's app clients",
        parameters: [tenantId],
        answer: [200, "OK", "ClientList"],
        errors: adminErrors,
      }),
    },
    "/admin/signing-keys/rotate": {
      post: adminOperation({
        operationId: "rotateSigningKey",
        summary:
          "Make a new token signing key active; the old one stays published until its tokens expire, unless `revokePrevious` revokes every earlier key at once",
        body: "RotateSigningKeyRequest",
        bodyOptional: true,
        answer: [201, "Created", "RotatedSigningKey"],
        errors: [400, 401],
      }),
    },
  };
}

/** A tenant's users: create, list, disable, revoke refresh tokens, lift login locks. */
function userAdminPaths(): Json {
  return {
    "/admin/tenants/{tenantId}/users": {
      post: adminOperation({
        operationId: "createUser",
        summary: "Create a user (role server or admin); usernames are unique across tenants",
        parameters: [tenantId],
        body: "CreateUserRequest",
        answer: [201, "Created", "User"],
        errors: adminErrors,
      }),
      get: adminOperation({
        operationId: "listUsers",
        summary: "List a tenant's users",
        parameters: [tenantId],
        answer: [200, "OK", "UserList"],
        errors: adminErrors,
      }),
    },
    "/admin/tenants/{tenantId}/users/{username}": {
      patch: adminOperation({
        operationId: "updateUser",
        summary: "Disable or enable a user",
        parameters: [tenantId, username],
        body: "UpdateUserRequest",
        answer: [200, "OK", "User"],
        errors: adminErrors,
      }),
    },
    "/admin/tenants/{tenantId}/users/{username}/refresh-tokens": {
      delete: adminOperation({
        operationId: "revokeRefreshTokens",
        summary: "Revoke every refresh token of a user",
        parameters: [tenantId, username],
        answer: [200, "OK", "RevokedRefreshTokens"],
        errors: adminErrors,
      }),
    },
    "/admin/tenants/{tenantId}/users/{username}/login-lock": {
      delete: adminOperation({
        operationId: "clearLoginLock",
        summary: "Lift a user's failed-login locks and waits, at every address",
        parameters: [tenantId, username],
        answer: [204, "Cleared"],
        errors: [400, 401, 404],
      }),
    },
  };
}

/** A tenant and its own limits. */
function tenantLimitPaths(): Json {
  return {
    "/admin/tenants/{tenantId}": {
      get: adminOperation({
        operationId: "getTenant",
        summary: "A tenant with its limits in force (its own, else the gateway's defaults)",
        parameters: [tenantId],
        answer: [200, "OK", "TenantDetails"],
        errors: [400, 401, 404],
      }),
      patch: adminOperation({
        operationId: "updateTenant",
        summary:
          "Set a tenant's own limits: requests per window, the window, WebSocket connections per replica (null: back to the default; in force on every replica within TENANT_LIMITS_CACHE_MS)",
        parameters: [tenantId],
        body: "UpdateTenantRequest",
        answer: [200, "OK", "TenantDetails"],
        errors: [400, 401, 404],
      }),
    },
  };
}

/** The OpenAPI 3.1 document of the public API, generated from the contracts and the action table. */
export function openApiDocument(publicUrl: string): Json {
  const paths: Record<string, Json> = gatewayPaths() as Record<string, Json>;
  for (const op of HOSTED_OPERATIONS as readonly HostedOperation[]) {
    paths[op.path] = { ...paths[op.path], [op.method.toLowerCase()]: hostedOperation(op) };
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Arena hosted API",
      version: "1.0.0",
      description:
        "Matchmaking, player statistics and leaderboards for game servers. Log in at `/auth` (Cognito-compatible), then send the IdToken as `Authorization` on every call. Errors are `application/problem+json` (RFC 9457).",
    },
    servers: [{ url: publicUrl }],
    tags: [
      "identity",
      "games",
      "queue",
      "matches",
      "backfill",
      "statistics",
      "seasons",
      "websocket",
      "admin",
    ].map((name) => ({ name })),
    paths,
    components: {
      schemas: openApiComponentSchemas(),
      securitySchemes: {
        idToken: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "The IdToken from /auth, raw or as `Bearer <IdToken>`",
        },
        adminToken: { type: "http", scheme: "bearer", description: "ADMIN_TOKEN (operators only)" },
      },
    },
  };
}
