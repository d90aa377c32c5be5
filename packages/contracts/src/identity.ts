import type { FromSchema } from "json-schema-to-ts";
import { compile } from "./validation.js";

/**
 * Identity: the Cognito-compatible login (`POST /auth`, `X-Amz-Target:
 * AWSCognitoIdentityProviderService.InitiateAuth` and `...RespondToAuthChallenge`) and the
 * gateway's admin API for tenants, app clients and users.
 *
 * The login shapes follow Cognito's InitiateAuth exactly, so the AWS SDK works unchanged. The SDK
 * and other Cognito clients may send fields we do not use (`ClientMetadata`, `AnalyticsMetadata`,
 * `UserContextData`, `SECRET_HASH` in AuthParameters, ...), so the request is open and those are
 * ignored. The admin API is ours, has no legacy clients, and is closed: a misspelt field is an error.
 */

export const AUTH_FLOWS = ["USER_PASSWORD_AUTH", "USER_SRP_AUTH", "REFRESH_TOKEN_AUTH"] as const;
export type AuthFlow = (typeof AUTH_FLOWS)[number];

/** IdToken and AccessToken lifetime, seconds (`ExpiresIn`). */
export const ID_TOKEN_LIFETIME_SECONDS = 3600;

const NonEmptyString = { type: "string", minLength: 1 } as const;
/**
 * A credential: a password or a token. `x-secret` is an annotation (OpenAPI allows `x-` keywords);
 * loggers redact every field so marked, at any depth (`secretFieldNames`).
 */
const Secret = { type: "string", minLength: 1, "x-secret": true } as const;

/**
 * Longest username and password, in characters, of a login and of a new user alike: a login's are
 * bounded before anything is looked up, hashed or counted, so a client cannot make the gateway
 * hash or keep megabytes. Cognito's own bound of a username is 128.
 */
export const USERNAME_MAX_LENGTH = 128;
export const PASSWORD_MAX_LENGTH = 256;
const LoginUsername = { type: "string", minLength: 1, maxLength: USERNAME_MAX_LENGTH } as const;
const LoginPassword = { ...Secret, maxLength: PASSWORD_MAX_LENGTH } as const;
/** Cognito's bound of an app client id. */
const ClientId = { type: "string", minLength: 1, maxLength: 128 } as const;
/**
 * The client's SRP public value A, in hex. A is below the 3072-bit group's prime, so 768 digits;
 * the bound leaves room for clients that pad it with zeros.
 */
export const SRP_A_MAX_LENGTH = 1024;
const SrpA = {
  type: "string",
  minLength: 1,
  maxLength: SRP_A_MAX_LENGTH,
  pattern: "^[0-9a-fA-F]+$",
} as const;
/** Other AuthParameters and ChallengeResponses a client may send (DEVICE_KEY, ...): ignored, bounded. */
const OtherParameter = { type: "string", maxLength: 2048 } as const;

export const InitiateAuthRequestSchema = {
  $id: "InitiateAuthRequest",
  type: "object",
  required: ["AuthFlow", "AuthParameters", "ClientId"],
  properties: {
    AuthFlow: { type: "string", enum: AUTH_FLOWS },
    AuthParameters: {
      type: "object",
      properties: {
        USERNAME: LoginUsername,
        PASSWORD: LoginPassword,
        SRP_A: SrpA,
        REFRESH_TOKEN: Secret,
        SECRET_HASH: Secret,
      },
      additionalProperties: { type: "string" },
    },
    ClientId,
  },
  // Each flow names the parameters it needs; the errors point at /AuthParameters/<NAME>.
  allOf: [
    {
      if: {
        required: ["AuthFlow"],
        properties: { AuthFlow: { type: "string", const: "USER_PASSWORD_AUTH" } },
      },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; its value is no function, so never a thenable
      then: {
        properties: {
          AuthParameters: {
            type: "object",
            required: ["USERNAME", "PASSWORD"],
            properties: { USERNAME: LoginUsername, PASSWORD: LoginPassword },
          },
        },
      },
    },
    {
      if: {
        required: ["AuthFlow"],
        properties: { AuthFlow: { type: "string", const: "USER_SRP_AUTH" } },
      },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; its value is no function, so never a thenable
      then: {
        properties: {
          AuthParameters: {
            type: "object",
            required: ["USERNAME", "SRP_A"],
            properties: { USERNAME: LoginUsername, SRP_A: SrpA },
          },
        },
      },
    },
    {
      if: {
        required: ["AuthFlow"],
        properties: { AuthFlow: { type: "string", const: "REFRESH_TOKEN_AUTH" } },
      },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; its value is no function, so never a thenable
      then: {
        properties: {
          AuthParameters: {
            type: "object",
            required: ["REFRESH_TOKEN"],
            properties: { REFRESH_TOKEN: Secret },
          },
        },
      },
    },
  ],
} as const;
export type InitiateAuthRequest = FromSchema<typeof InitiateAuthRequestSchema>;

/** The tokens of a login, as Cognito answers them. */
const AuthenticationResult = {
  type: "object",
  required: ["IdToken", "AccessToken", "ExpiresIn", "TokenType"],
  properties: {
    IdToken: Secret,
    AccessToken: Secret,
    /** Not on REFRESH_TOKEN_AUTH: a refresh answers new Id/Access tokens, as Cognito does. */
    RefreshToken: Secret,
    ExpiresIn: { type: "integer", minimum: 1 },
    TokenType: { type: "string", const: "Bearer" },
  },
  additionalProperties: false,
} as const;

/** The one challenge the gateway asks: USER_SRP_AUTH's proof of the password. */
export const CHALLENGE_NAMES = ["PASSWORD_VERIFIER"] as const;

/**
 * USER_PASSWORD_AUTH and REFRESH_TOKEN_AUTH answer `AuthenticationResult` (and empty
 * `ChallengeParameters`); USER_SRP_AUTH answers `ChallengeName: PASSWORD_VERIFIER` with
 * `ChallengeParameters` `SALT`, `SRP_B`, `SECRET_BLOCK`, `USER_ID_FOR_SRP` and `USERNAME`, the
 * fields real Cognito answers, to be answered with RespondToAuthChallenge.
 */
export const InitiateAuthResponseSchema = {
  $id: "InitiateAuthResponse",
  type: "object",
  required: ["ChallengeParameters"],
  properties: {
    AuthenticationResult,
    ChallengeName: { type: "string", enum: CHALLENGE_NAMES },
    ChallengeParameters: {
      type: "object",
      // Named so that clients and generated types see the challenge; empty after a login.
      properties: {
        SALT: { type: "string", description: "PASSWORD_VERIFIER: the user's SRP salt, hex" },
        SRP_B: { type: "string", description: "PASSWORD_VERIFIER: the server's public value B, hex" },
        SECRET_BLOCK: {
          type: "string",
          description: "PASSWORD_VERIFIER: sent back unchanged as PASSWORD_CLAIM_SECRET_BLOCK",
        },
        USER_ID_FOR_SRP: {
          type: "string",
          description: "PASSWORD_VERIFIER: the name the password claim is computed with",
        },
        USERNAME: { type: "string", description: "PASSWORD_VERIFIER: the user the challenge is for" },
      },
      additionalProperties: { type: "string" },
    },
  },
  additionalProperties: false,
} as const;
export type InitiateAuthResponse = FromSchema<typeof InitiateAuthResponseSchema>;

/** Longest PASSWORD_CLAIM_SECRET_BLOCK: the gateway's own blocks are about 1,200 characters. */
export const SECRET_BLOCK_MAX_LENGTH = 4096;

/**
 * `X-Amz-Target: AWSCognitoIdentityProviderService.RespondToAuthChallenge`: the answer to the
 * PASSWORD_VERIFIER challenge. `USERNAME` is the challenge's `USER_ID_FOR_SRP`;
 * `PASSWORD_CLAIM_SECRET_BLOCK` its `SECRET_BLOCK`, unchanged; `PASSWORD_CLAIM_SIGNATURE` the
 * base64 HMAC-SHA256 of the SRP proof; `TIMESTAMP` the client's UTC time as
 * `ddd MMM D HH:mm:ss UTC YYYY`. Like InitiateAuth the request is open: `Session`,
 * `ClientMetadata`, `UserContextData`, `SECRET_HASH`, `DEVICE_KEY`, ... are ignored.
 */
export const RespondToAuthChallengeRequestSchema = {
  $id: "RespondToAuthChallengeRequest",
  type: "object",
  required: ["ChallengeName", "ClientId", "ChallengeResponses"],
  properties: {
    ChallengeName: { type: "string", enum: CHALLENGE_NAMES },
    ClientId,
    ChallengeResponses: {
      type: "object",
      required: ["USERNAME", "PASSWORD_CLAIM_SECRET_BLOCK", "PASSWORD_CLAIM_SIGNATURE", "TIMESTAMP"],
      properties: {
        // USER_ID_FOR_SRP: the lower-cased username, which may be longer than the name as sent.
        USERNAME: { type: "string", minLength: 1, maxLength: 4 * USERNAME_MAX_LENGTH },
        PASSWORD_CLAIM_SECRET_BLOCK: { ...Secret, maxLength: SECRET_BLOCK_MAX_LENGTH },
        PASSWORD_CLAIM_SIGNATURE: { ...Secret, maxLength: 64 },
        TIMESTAMP: { type: "string", minLength: 1, maxLength: 64 },
        SECRET_HASH: Secret,
      },
      additionalProperties: OtherParameter,
    },
    Session: { type: "string", maxLength: 2048 },
  },
} as const;
export type RespondToAuthChallengeRequest = FromSchema<typeof RespondToAuthChallengeRequestSchema>;

/** A verified PASSWORD_VERIFIER answers the tokens, exactly as USER_PASSWORD_AUTH does. */
export const RespondToAuthChallengeResponseSchema = {
  $id: "RespondToAuthChallengeResponse",
  type: "object",
  required: ["AuthenticationResult", "ChallengeParameters"],
  properties: {
    AuthenticationResult,
    ChallengeParameters: { type: "object", additionalProperties: { type: "string" } },
  },
  additionalProperties: false,
} as const;
export type RespondToAuthChallengeResponse = FromSchema<typeof RespondToAuthChallengeResponseSchema>;

/**
 * Cognito's error `__type`s that the login answers. The first four are the 400s of the contract (a
 * wrong password and an unknown user are both NotAuthorizedException); `UnknownOperationException`
 * answers an unsupported `X-Amz-Target` and `InternalErrorException` a 500, as Cognito does.
 */
export const COGNITO_ERROR_TYPES = [
  "NotAuthorizedException",
  "InvalidParameterException",
  "ResourceNotFoundException",
  "TooManyRequestsException",
  "UnknownOperationException",
  "InternalErrorException",
] as const;
export type CognitoErrorType = (typeof COGNITO_ERROR_TYPES)[number];

export const CognitoErrorSchema = {
  $id: "CognitoError",
  type: "object",
  required: ["__type", "message"],
  properties: { __type: { type: "string", enum: COGNITO_ERROR_TYPES }, message: { type: "string" } },
  additionalProperties: false,
} as const;
export type CognitoError = FromSchema<typeof CognitoErrorSchema>;

/**
 * Tenant ids are chosen by the operator and appear in URLs, token claims and storage keys:
 * lowercase letters, digits, `_` and `-`, starting with a letter or digit, at most 63 characters.
 */
export const TENANT_ID_PATTERN = "^[a-z0-9][a-z0-9_-]{0,62}$";
const TenantId = { type: "string", pattern: TENANT_ID_PATTERN } as const;

/**
 * A tenant's Cognito user pool id, `<region>_<name>`, what a Cognito client configures as its
 * `UserPoolId` (amazon-cognito-identity-js's own check: this pattern, at most 55 characters). The
 * name part enters every SRP password verifier, so it never changes.
 */
export const USER_POOL_ID_PATTERN = "^[\\w-]+_[0-9a-zA-Z]+$";
const UserPoolId = {
  type: "string",
  maxLength: 55,
  pattern: USER_POOL_ID_PATTERN,
  description: "The tenant's user pool id (`<region>_<name>`): a Cognito client's `UserPoolId`",
} as const;
const DisplayName = { type: "string", minLength: 1, maxLength: 200 } as const;

export const CreateTenantRequestSchema = {
  $id: "CreateTenantRequest",
  type: "object",
  required: ["tenantId", "name"],
  properties: { tenantId: TenantId, name: DisplayName },
  additionalProperties: false,
} as const;
export type CreateTenantRequest = FromSchema<typeof CreateTenantRequestSchema>;

export const TenantSchema = {
  $id: "Tenant",
  type: "object",
  required: ["tenantId", "name", "userPoolId", "createdAt"],
  properties: {
    tenantId: TenantId,
    name: DisplayName,
    userPoolId: UserPoolId,
    createdAt: { type: "string", format: "date-time" },
  },
  additionalProperties: false,
} as const;
export type Tenant = FromSchema<typeof TenantSchema>;

export const CreateClientRequestSchema = {
  $id: "CreateClientRequest",
  type: "object",
  required: ["name"],
  properties: { name: DisplayName },
  additionalProperties: false,
} as const;
export type CreateClientRequest = FromSchema<typeof CreateClientRequestSchema>;

/** The created app client: `clientId` is what a game sends as `ClientId` in InitiateAuth. */
export const CreatedClientSchema = {
  $id: "CreatedClient",
  type: "object",
  required: ["clientId"],
  properties: { clientId: NonEmptyString, name: DisplayName, tenantId: TenantId },
  additionalProperties: false,
} as const;
export type CreatedClient = FromSchema<typeof CreatedClientSchema>;

/** `server`: game servers, REST and WebSocket API. `admin`: also configures games and seasons. */
export const USER_ROLES = ["server", "admin"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Usernames are unique across tenants, 1-128 characters without whitespace (as Cognito allows). */
export const USERNAME_PATTERN = "^\\S+$";
/** 8 characters minimum (Cognito's default policy); the maximum bounds the cost of hashing. */
export const PASSWORD_MIN_LENGTH = 8;

const Username = { ...LoginUsername, pattern: USERNAME_PATTERN } as const;
const UserRoleSchema = { type: "string", enum: USER_ROLES } as const;

export const CreateUserRequestSchema = {
  $id: "CreateUserRequest",
  type: "object",
  required: ["username", "password", "role"],
  properties: {
    username: Username,
    password: {
      type: "string",
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_LENGTH,
      "x-secret": true,
    },
    role: UserRoleSchema,
  },
  additionalProperties: false,
} as const;
export type CreateUserRequest = FromSchema<typeof CreateUserRequestSchema>;

const Timestamp = { type: "string", format: "date-time" } as const;

const UserObject = {
  type: "object",
  required: ["username", "role", "tenantId", "disabled", "createdAt"],
  properties: {
    username: Username,
    role: UserRoleSchema,
    tenantId: TenantId,
    disabled: { type: "boolean", description: "A disabled user cannot log in; its tokens are refused." },
    createdAt: Timestamp,
  },
  additionalProperties: false,
} as const;

/** A user as answered: never the password or its hash. */
export const UserSchema = { $id: "User", ...UserObject } as const;
export type User = FromSchema<typeof UserSchema>;

/** `PATCH /admin/tenants/{tenantId}/users/{username}`: disable or enable a user. */
export const UpdateUserRequestSchema = {
  $id: "UpdateUserRequest",
  type: "object",
  required: ["disabled"],
  properties: { disabled: { type: "boolean" } },
  additionalProperties: false,
} as const;
export type UpdateUserRequest = FromSchema<typeof UpdateUserRequestSchema>;

/** `DELETE /admin/tenants/{tenantId}/users/{username}/refresh-tokens`: how many were still live. */
export const RevokedRefreshTokensSchema = {
  $id: "RevokedRefreshTokens",
  type: "object",
  required: ["revoked"],
  properties: { revoked: { type: "integer", minimum: 0 } },
  additionalProperties: false,
} as const;
export type RevokedRefreshTokens = FromSchema<typeof RevokedRefreshTokensSchema>;

const { $id: _tenant, ...TenantObject } = TenantSchema;
const { $id: _client, ...ClientObject } = CreatedClientSchema;

/** Admin lists, oldest first; an operator's tenants, clients and users are few, so no paging. */
export const TenantListSchema = {
  $id: "TenantList",
  type: "object",
  required: ["tenants"],
  properties: { tenants: { type: "array", items: TenantObject } },
  additionalProperties: false,
} as const;
export type TenantList = FromSchema<typeof TenantListSchema>;

export const ClientListSchema = {
  $id: "ClientList",
  type: "object",
  required: ["clients"],
  properties: { clients: { type: "array", items: ClientObject } },
  additionalProperties: false,
} as const;
export type ClientList = FromSchema<typeof ClientListSchema>;

export const UserListSchema = {
  $id: "UserList",
  type: "object",
  required: ["users"],
  properties: { users: { type: "array", items: UserObject } },
  additionalProperties: false,
} as const;
export type UserList = FromSchema<typeof UserListSchema>;

// ----------------------------------------------------------------------------------------------
// Per-tenant limits: `GET` and `PATCH /admin/tenants/{tenantId}` (and the admin CLI). Each limit
// the tenant has none of is the gateway's default (TENANT_RATE_LIMIT, TENANT_RATE_WINDOW_SECONDS,
// WS_MAX_CONNECTIONS_PER_TENANT).
// ----------------------------------------------------------------------------------------------

/** The largest value an operator may set for each of a tenant's limits. */
export const TENANT_LIMIT_MAXIMA = {
  requests: 10_000_000,
  windowSeconds: 86_400,
  webSocketConnections: 100_000,
} as const;

const LIMIT_DESCRIPTIONS = {
  requests: "Requests (REST calls and WebSocket messages) per window, over every replica",
  windowSeconds: "The rate limit's window, in seconds",
  webSocketConnections: "Open WebSocket connections, counted on each replica",
} as const;

/** A limit as an operator sets it: a bounded value, or null for the gateway's default. */
const limitSetting = <K extends keyof typeof TENANT_LIMIT_MAXIMA>(name: K) =>
  ({
    type: ["integer", "null"],
    minimum: 1,
    maximum: TENANT_LIMIT_MAXIMA[name],
    description: `${LIMIT_DESCRIPTIONS[name]}; null: the gateway's default`,
  }) as const;

const LimitSettings = {
  requests: limitSetting("requests"),
  windowSeconds: limitSetting("windowSeconds"),
  webSocketConnections: limitSetting("webSocketConnections"),
} as const;

/** `PATCH /admin/tenants/{tenantId}`: each limit given is set (null: back to the default); the others are kept. */
export const UpdateTenantRequestSchema = {
  $id: "UpdateTenantRequest",
  type: "object",
  required: ["limits"],
  properties: {
    limits: { type: "object", properties: LimitSettings, additionalProperties: false },
  },
  additionalProperties: false,
} as const;
export type UpdateTenantRequest = FromSchema<typeof UpdateTenantRequestSchema>;

/** A limit in force: the tenant's own or the default (which the gateway's settings bound, not the maxima). */
const limitInForce = (name: keyof typeof TENANT_LIMIT_MAXIMA) =>
  ({ type: "integer", minimum: 1, description: LIMIT_DESCRIPTIONS[name] }) as const;

/** A tenant with its limits: those in force, and which of them are its own (`overrides`, null: the default). */
export const TenantDetailsSchema = {
  $id: "TenantDetails",
  type: "object",
  required: ["tenantId", "name", "userPoolId", "createdAt", "limits", "overrides"],
  properties: {
    ...TenantSchema.properties,
    limits: {
      type: "object",
      required: ["requests", "windowSeconds", "webSocketConnections"],
      properties: {
        requests: limitInForce("requests"),
        windowSeconds: limitInForce("windowSeconds"),
        webSocketConnections: limitInForce("webSocketConnections"),
      },
      additionalProperties: false,
    },
    overrides: {
      type: "object",
      required: ["requests", "windowSeconds", "webSocketConnections"],
      properties: LimitSettings,
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
export type TenantDetails = FromSchema<typeof TenantDetailsSchema>;

export const validateUpdateTenantRequest = compile<UpdateTenantRequest>(UpdateTenantRequestSchema);
export const validateTenantDetails = compile<TenantDetails>(TenantDetailsSchema);

// ----------------------------------------------------------------------------------------------

/**
 * The claims of the gateway's IdToken and AccessToken (Cognito's names where Cognito has one):
 * `token_use` tells them apart, `aud` is the app client, `tenant` and `role` decide what the
 * bearer may do.
 */
export interface GatewayTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  token_use: "id" | "access";
  tenant: string;
  role: UserRole;
  "cognito:username": string;
  client_id: string;
  auth_time: number;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * The names of every property marked `x-secret` anywhere in `schemas`: what a logger must redact,
 * generated from the wire shapes instead of a hand-kept list.
 */
export function secretFieldNames(schemas: readonly unknown[]): string[] {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const properties = (node as { properties?: unknown }).properties;
    if (properties !== null && typeof properties === "object") {
      for (const [name, schema] of Object.entries(properties)) {
        if ((schema as Record<string, unknown> | null)?.["x-secret"] === true) names.add(name);
      }
    }
    for (const child of Object.values(node)) walk(child);
  };
  walk(schemas);
  return [...names].sort();
}

/** The credential fields of the identity wire shapes (login bodies, answers, user creation). */
export const IDENTITY_SECRET_FIELDS: readonly string[] = Object.freeze(
  secretFieldNames([
    InitiateAuthRequestSchema,
    InitiateAuthResponseSchema,
    RespondToAuthChallengeRequestSchema,
    RespondToAuthChallengeResponseSchema,
    CreateUserRequestSchema,
  ]),
);

export const validateInitiateAuthRequest = compile<InitiateAuthRequest>(InitiateAuthRequestSchema);
export const validateInitiateAuthResponse = compile<InitiateAuthResponse>(InitiateAuthResponseSchema);
export const validateRespondToAuthChallengeRequest = compile<RespondToAuthChallengeRequest>(
  RespondToAuthChallengeRequestSchema,
);
export const validateRespondToAuthChallengeResponse = compile<RespondToAuthChallengeResponse>(
  RespondToAuthChallengeResponseSchema,
);
export const validateCognitoError = compile<CognitoError>(CognitoErrorSchema);
export const validateCreateTenantRequest = compile<CreateTenantRequest>(CreateTenantRequestSchema);
export const validateTenant = compile<Tenant>(TenantSchema);
export const validateCreateClientRequest = compile<CreateClientRequest>(CreateClientRequestSchema);
export const validateCreatedClient = compile<CreatedClient>(CreatedClientSchema);
export const validateCreateUserRequest = compile<CreateUserRequest>(CreateUserRequestSchema);
export const validateUser = compile<User>(UserSchema);
export const validateUpdateUserRequest = compile<UpdateUserRequest>(UpdateUserRequestSchema);
export const validateRevokedRefreshTokens = compile<RevokedRefreshTokens>(RevokedRefreshTokensSchema);
export const validateTenantList = compile<TenantList>(TenantListSchema);
export const validateClientList = compile<ClientList>(ClientListSchema);
export const validateUserList = compile<UserList>(UserListSchema);
