import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import {
  ID_TOKEN_LIFETIME_SECONDS,
  IDENTITY_SECRET_FIELDS,
  validateCognitoError,
  validateCreateClientRequest,
  validateCreatedClient,
  validateCreateTenantRequest,
  validateCreateUserRequest,
  validateInitiateAuthRequest,
  validateInitiateAuthResponse,
  validateTenant,
  validateUser,
} from "./identity.js";

const passwordLogin = {
  AuthFlow: "USER_PASSWORD_AUTH",
  AuthParameters: { USERNAME: "game-server-eu", PASSWORD: "correct horse battery staple" },
  ClientId: "4tq9u1f0dlk2v8d0s7h3m5n6p1",
};

describe("InitiateAuth request", () => {
  it("accepts the password login of Idem's documentation", () => {
    expect(validateInitiateAuthRequest(passwordLogin)).toBe(true);
  });

  it("accepts a refresh-token login", () => {
    expect(
      validateInitiateAuthRequest({
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: "eyJjdHkiOi..." },
        ClientId: "4tq9u1f0dlk2v8d0s7h3m5n6p1",
      }),
    ).toBe(true);
  });

  it("ignores the extra fields the AWS SDK may send, such as ClientMetadata and SECRET_HASH", () => {
    expect(
      validateInitiateAuthRequest({
        ...passwordLogin,
        AuthParameters: { ...passwordLogin.AuthParameters, SECRET_HASH: "abc=" },
        ClientMetadata: { source: "unity" },
      }),
    ).toBe(true);
  });

  it("names the missing password of a password login", () => {
    const { PASSWORD: _omitted, ...parameters } = passwordLogin.AuthParameters;
    expect(
      fieldErrorsOf(validateInitiateAuthRequest, { ...passwordLogin, AuthParameters: parameters }),
    ).toEqual([{ pointer: "/AuthParameters/PASSWORD", detail: "is required" }]);
  });

  it("names the missing refresh token of a refresh login", () => {
    expect(
      fieldErrorsOf(validateInitiateAuthRequest, { ...passwordLogin, AuthFlow: "REFRESH_TOKEN_AUTH" }),
    ).toEqual([{ pointer: "/AuthParameters/REFRESH_TOKEN", detail: "is required" }]);
  });

  it("names the missing SRP_A of an SRP login", () => {
    expect(
      fieldErrorsOf(validateInitiateAuthRequest, { ...passwordLogin, AuthFlow: "USER_SRP_AUTH" }),
    ).toEqual([{ pointer: "/AuthParameters/SRP_A", detail: "is required" }]);
  });

  it("rejects a flow Cognito offers but this service does not", () => {
    expect(fieldErrorsOf(validateInitiateAuthRequest, { ...passwordLogin, AuthFlow: "CUSTOM_AUTH" })).toEqual(
      [
        {
          pointer: "/AuthFlow",
          detail: 'must be one of "USER_PASSWORD_AUTH", "USER_SRP_AUTH", "REFRESH_TOKEN_AUTH"',
        },
      ],
    );
  });

  it("requires the client id", () => {
    const { ClientId: _omitted, ...body } = passwordLogin;
    expect(fieldErrorsOf(validateInitiateAuthRequest, body)).toEqual([
      { pointer: "/ClientId", detail: "is required" },
    ]);
  });
});

describe("InitiateAuth response", () => {
  const result = {
    AuthenticationResult: {
      IdToken: "eyJraWQiOi.id.token",
      AccessToken: "eyJraWQiOi.access.token",
      RefreshToken: "eyJjdHkiOi.refresh.token",
      ExpiresIn: ID_TOKEN_LIFETIME_SECONDS,
      TokenType: "Bearer",
    },
    ChallengeParameters: {},
  };

  it("accepts a password login answer with a refresh token", () => {
    expect(validateInitiateAuthResponse(result)).toBe(true);
  });

  it("accepts a refresh answer without a new refresh token", () => {
    const { RefreshToken: _omitted, ...tokens } = result.AuthenticationResult;
    expect(validateInitiateAuthResponse({ ...result, AuthenticationResult: tokens })).toBe(true);
  });

  it("rejects another token type and a leaked extra field", () => {
    expect(
      fieldErrorsOf(validateInitiateAuthResponse, {
        ...result,
        AuthenticationResult: { ...result.AuthenticationResult, TokenType: "MAC", tenantId: "acme" },
      }),
    ).toEqual([
      { pointer: "/AuthenticationResult/tenantId", detail: "is not an allowed property" },
      { pointer: "/AuthenticationResult/TokenType", detail: "must be equal to constant" },
    ]);
  });
});

describe("Cognito error body", () => {
  it("accepts the error a wrong password or an unknown user gets", () => {
    expect(
      validateCognitoError({ __type: "NotAuthorizedException", message: "Incorrect username or password." }),
    ).toBe(true);
  });

  it("rejects an error type Cognito clients would not recognise", () => {
    expect(fieldErrorsOf(validateCognitoError, { __type: "Unauthorized", message: "no" })[0]?.pointer).toBe(
      "/__type",
    );
  });
});

describe("admin API bodies", () => {
  it("accepts a tenant with a lowercase slug id and answers it with its creation time", () => {
    expect(validateCreateTenantRequest({ tenantId: "acme-games", name: "Acme Games" })).toBe(true);
    expect(
      validateTenant({
        tenantId: "acme-games",
        name: "Acme Games",
        userPoolId: "eu-west-1_AcmeGames",
        createdAt: "2026-11-02T10:00:00.000Z",
      }),
    ).toBe(true);
  });

  it("rejects a tenant id that could not appear in a URL or a claim as is", () => {
    expect(fieldErrorsOf(validateCreateTenantRequest, { tenantId: "Acme Games", name: "Acme" })).toEqual([
      { pointer: "/tenantId", detail: 'must match pattern "^[a-z0-9][a-z0-9_-]{0,62}$"' },
    ]);
  });

  it("rejects unknown fields on admin bodies", () => {
    expect(fieldErrorsOf(validateCreateClientRequest, { name: "unity-client", secret: true })).toEqual([
      { pointer: "/secret", detail: "is not an allowed property" },
    ]);
  });

  it("accepts an app client and its created answer", () => {
    expect(validateCreateClientRequest({ name: "unity-client" })).toBe(true);
    expect(validateCreatedClient({ clientId: "4tq9u1f0dlk2v8d0s7h3m5n6p1" })).toBe(true);
  });

  it("accepts a server user and answers it without the password", () => {
    expect(
      validateCreateUserRequest({ username: "game-server-eu", password: "s3cret-passw0rd", role: "server" }),
    ).toBe(true);
    const user = {
      username: "game-server-eu",
      role: "server",
      tenantId: "acme-games",
      disabled: false,
      createdAt: "2026-11-23T09:00:00.000Z",
    };
    expect(validateUser(user)).toBe(true);
    expect(fieldErrorsOf(validateUser, { ...user, password: "x" })).toEqual([
      { pointer: "/password", detail: "is not an allowed property" },
    ]);
  });

  it("marks every credential field of the identity shapes for redaction, and nothing else", () => {
    expect(IDENTITY_SECRET_FIELDS).toEqual([
      "AccessToken",
      "IdToken",
      "PASSWORD",
      "PASSWORD_CLAIM_SECRET_BLOCK",
      "PASSWORD_CLAIM_SIGNATURE",
      "REFRESH_TOKEN",
      "RefreshToken",
      "SECRET_HASH",
      "password",
    ]);
  });

  it("rejects an unknown role, a short password and a username with spaces", () => {
    expect(
      fieldErrorsOf(validateCreateUserRequest, { username: "game server", password: "short", role: "root" }),
    ).toEqual([
      { pointer: "/username", detail: 'must match pattern "^\\S+$"' },
      { pointer: "/password", detail: "must NOT have fewer than 8 characters" },
      { pointer: "/role", detail: 'must be one of "server", "admin"' },
    ]);
  });
});
