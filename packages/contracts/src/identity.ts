import type { FromSchema } from "json-schema-to-ts";
import { compile } from "./validation.js";

/**
 * Identity: the Cognito-compatible login (`POST /auth`, `X-Amz-Target:
 * AWSCognitoIdentityProviderService.InitiateAuth`) and the gateway's admin API for tenants, app
 * clients and users.
 *
 * The login shapes follow Cognito's InitiateAuth exactly, so the AWS SDK works unchanged. The SDK
 * and other Cognito clients may send fields we do not use (`ClientMetadata`, `AnalyticsMetadata`,
 * `UserContextData`, `SECRET_HASH` in AuthParameters, ...), so the request is open and those are
 * ignored. The admin API is ours, has no legacy clients, and is closed: a misspelt field is an error.
 */

export const AUTH_FLOWS = ["USER_PASSWORD_AUTH", "REFRESH_TOKEN_AUTH"] as const;
export type AuthFlow = (typeof AUTH_FLOWS)[number];

/** IdToken and AccessToken lifetime, seconds (`ExpiresIn`). */
export const ID_TOKEN_LIFETIME_SECONDS = 3600;

const NonEmptyString = { type: "string", minLength: 1 } as const;

export const InitiateAuthRequestSchema = {
  $id: "InitiateAuthRequest",
  type: "object",
  required: ["AuthFlow", "AuthParameters", "ClientId"],
  properties: {
    AuthFlow: { type: "string", enum: AUTH_FLOWS },
    AuthParameters: {
      type: "object",
      properties: { USERNAME: NonEmptyString, PASSWORD: NonEmptyString, REFRESH_TOKEN: NonEmptyString },
      additionalProperties: { type: "string" },
    },
    ClientId: NonEmptyString,
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
            properties: { USERNAME: NonEmptyString, PASSWORD: NonEmptyString },
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
            properties: { REFRESH_TOKEN: NonEmptyString },
          },
        },
      },
    },
  ],
} as const;
export type InitiateAuthRequest = FromSchema<typeof InitiateAuthRequestSchema>;

export const InitiateAuthResponseSchema = {
  $id: "InitiateAuthResponse",
  type: "object",
  required: ["AuthenticationResult", "ChallengeParameters"],
  properties: {
    AuthenticationResult: {
      type: "object",
      required: ["IdToken", "AccessToken", "ExpiresIn", "TokenType"],
      properties: {
        IdToken: NonEmptyString,
        AccessToken: NonEmptyString,
        /** Only on USER_PASSWORD_AUTH: a refresh answers new Id/Access tokens, as Cognito does. */
        RefreshToken: NonEmptyString,
        ExpiresIn: { type: "integer", minimum: 1 },
        TokenType: { type: "string", const: "Bearer" },
      },
      additionalProperties: false,
    },
    ChallengeParameters: { type: "object", additionalProperties: { type: "string" } },
  },
  additionalProperties: false,
} as const;
export type InitiateAuthResponse = FromSchema<typeof InitiateAuthResponseSchema>;

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
  required: ["tenantId", "name", "createdAt"],
  properties: { tenantId: TenantId, name: DisplayName, createdAt: { type: "string", format: "date-time" } },
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
export const PASSWORD_MAX_LENGTH = 256;

const Username = { type: "string", minLength: 1, maxLength: 128, pattern: USERNAME_PATTERN } as const;
const UserRoleSchema = { type: "string", enum: USER_ROLES } as const;

export const CreateUserRequestSchema = {
  $id: "CreateUserRequest",
  type: "object",
  required: ["username", "password", "role"],
  properties: {
    username: Username,
    password: { type: "string", minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
    role: UserRoleSchema,
  },
  additionalProperties: false,
} as const;
export type CreateUserRequest = FromSchema<typeof CreateUserRequestSchema>;

/** The created user as answered: never the password or its hash. */
export const UserSchema = {
  $id: "User",
  type: "object",
  required: ["username", "role", "tenantId"],
  properties: { username: Username, role: UserRoleSchema, tenantId: TenantId },
  additionalProperties: false,
} as const;
export type User = FromSchema<typeof UserSchema>;

export const validateInitiateAuthRequest = compile<InitiateAuthRequest>(InitiateAuthRequestSchema);
export const validateInitiateAuthResponse = compile<InitiateAuthResponse>(InitiateAuthResponseSchema);
export const validateCognitoError = compile<CognitoError>(CognitoErrorSchema);
export const validateCreateTenantRequest = compile<CreateTenantRequest>(CreateTenantRequestSchema);
export const validateTenant = compile<Tenant>(TenantSchema);
export const validateCreateClientRequest = compile<CreateClientRequest>(CreateClientRequestSchema);
export const validateCreatedClient = compile<CreatedClient>(CreatedClientSchema);
export const validateCreateUserRequest = compile<CreateUserRequest>(CreateUserRequestSchema);
export const validateUser = compile<User>(UserSchema);
