import { validateCognitoError, validateInitiateAuthResponse } from "@arena/contracts";
import {
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
  NotAuthorizedException,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { INITIATE_AUTH_TARGET } from "../src/identity/cognito-routes.js";
import { adminAuth, createHarness, type Harness, nextIp, PASSWORD } from "./harness.js";

let h: Harness;
let clientId: string;
let otherClientId: string;
beforeAll(async () => {
  h = await createHarness({
    env: {
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: "3",
      LOGIN_FAILURES_PER_USERNAME: "6",
      LOGIN_FAILURES_PER_ADDRESS: "5",
    },
  });
  clientId = await h.createTenant("acme");
  otherClientId = await h.createTenant("globex");
  await h.createUser("acme", "server-eu");
  await h.createUser("acme", "ops-admin", "admin");
  await h.createUser("globex", "globex-server");
});
afterAll(async () => {
  await h?.close();
});

const passwordLogin = (USERNAME: string, PASSWORD_: string, ClientId = clientId) => ({
  AuthFlow: "USER_PASSWORD_AUTH",
  AuthParameters: { USERNAME, PASSWORD: PASSWORD_ },
  ClientId,
});

/** The answer's Cognito error: status 400, the header the SDK reads, and the body. */
function cognitoError(res: { status: number; headers: Record<string, string>; text: string }) {
  const body = JSON.parse(res.text);
  expect(validateCognitoError(body)).toBe(true);
  expect(res.headers["content-type"]).toMatch(/^application\/x-amz-json-1\.1/);
  expect(res.headers["x-amzn-errortype"]).toBe(`${body.__type}:`);
  return { status: res.status, type: body.__type as string, message: body.message as string };
}

describe("USER_PASSWORD_AUTH", () => {
  it("answers Cognito's shape: three tokens, ExpiresIn 3600, Bearer, empty ChallengeParameters", async () => {
    const res = await h.initiateAuth(passwordLogin("server-eu", PASSWORD)).expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/x-amz-json-1\.1/);
    const body = JSON.parse(res.text);
    expect(validateInitiateAuthResponse(body)).toBe(true);
    expect(body.AuthenticationResult).toEqual({
      IdToken: expect.any(String),
      AccessToken: expect.any(String),
      RefreshToken: expect.any(String),
      ExpiresIn: 3600,
      TokenType: "Bearer",
    });
    expect(body.ChallengeParameters).toEqual({});
  });

  it("signs tokens with RS256 (the default) and a kid, carrying tenant, role, aud = ClientId, iss and token_use", async () => {
    const tokens = await h.login("ops-admin", clientId);
    for (const [token, use] of [
      [tokens.IdToken, "id"],
      [tokens.AccessToken, "access"],
    ] as const) {
      expect(decodeProtectedHeader(token)).toEqual({ alg: "RS256", kid: expect.any(String), typ: "JWT" });
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({
        iss: "http://gateway.test",
        aud: clientId,
        tenant: "acme",
        role: "admin",
        token_use: use,
        "cognito:username": "ops-admin",
      });
      expect(claims.exp! - claims.iat!).toBe(3600);
    }
  });

  it("matches usernames without regard to case", async () => {
    await h.initiateAuth(passwordLogin("SERVER-EU", PASSWORD)).expect(200);
  });

  it("answers a wrong password and an unknown user with the same NotAuthorizedException", async () => {
    const wrong = cognitoError(await h.initiateAuth(passwordLogin("server-eu", "not-the-password")));
    const unknown = cognitoError(await h.initiateAuth(passwordLogin("nobody-here", "not-the-password")));
    expect(wrong).toEqual({
      status: 400,
      type: "NotAuthorizedException",
      message: "Incorrect username or password.",
    });
    expect(unknown).toEqual(wrong);
  });

  it("answers a user of another tenant as if unknown, even with the right password", async () => {
    const res = cognitoError(await h.initiateAuth(passwordLogin("globex-server", PASSWORD, clientId)));
    expect(res.type).toBe("NotAuthorizedException");
    expect(res.message).toBe("Incorrect username or password.");
    await h.initiateAuth(passwordLogin("globex-server", PASSWORD, otherClientId)).expect(200);
  });

  it("answers an unknown ClientId with ResourceNotFoundException", async () => {
    const res = cognitoError(
      await h.initiateAuth(passwordLogin("server-eu", PASSWORD, "nosuchclient0000000000000")),
    );
    expect(res).toMatchObject({ status: 400, type: "ResourceNotFoundException" });
  });

  it("answers missing parameters with InvalidParameterException naming the parameter", async () => {
    const res = cognitoError(
      await h.initiateAuth({
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: "server-eu" },
        ClientId: clientId,
      }),
    );
    expect(res).toEqual({
      status: 400,
      type: "InvalidParameterException",
      message: "Missing required parameter PASSWORD",
    });
  });

  it("answers an unsupported flow, a malformed body and a wrong content type with InvalidParameterException", async () => {
    const flow = cognitoError(
      await h.initiateAuth({ ...passwordLogin("server-eu", PASSWORD), AuthFlow: "CUSTOM_AUTH" }),
    );
    expect(flow.type).toBe("InvalidParameterException");
    const malformed = await h.http
      .post("/auth")
      .set("X-Amz-Target", INITIATE_AUTH_TARGET)
      .set("Content-Type", "application/x-amz-json-1.1")
      .send("{not json");
    expect(cognitoError(malformed).type).toBe("InvalidParameterException");
    const text = await h.http
      .post("/auth")
      .set("X-Amz-Target", INITIATE_AUTH_TARGET)
      .set("Content-Type", "text/plain")
      .send("x");
    expect(cognitoError(text).type).toBe("InvalidParameterException");
  });

  it("answers another X-Amz-Target with UnknownOperationException", async () => {
    const res = await h.http
      .post("/auth")
      .set("X-Amz-Target", "AWSCognitoIdentityProviderService.SignUp")
      .set("Content-Type", "application/x-amz-json-1.1")
      .send("{}");
    expect(cognitoError(res)).toMatchObject({ status: 400, type: "UnknownOperationException" });
  });

  it("refuses a disabled user with the right password, and logs it in again once enabled", async () => {
    await h.createUser("acme", "to-disable");
    await h.http
      .patch("/admin/tenants/acme/users/to-disable")
      .set(adminAuth)
      .send({ disabled: true })
      .expect(200);
    const res = cognitoError(await h.initiateAuth(passwordLogin("to-disable", PASSWORD)));
    expect(res).toEqual({ status: 400, type: "NotAuthorizedException", message: "User is disabled." });
    await h.http
      .patch("/admin/tenants/acme/users/to-disable")
      .set(adminAuth)
      .send({ disabled: false })
      .expect(200);
    await h.initiateAuth(passwordLogin("to-disable", PASSWORD)).expect(200);
  });
});

describe("REFRESH_TOKEN_AUTH", () => {
  const refresh = (REFRESH_TOKEN: string, ClientId = clientId) =>
    h.initiateAuth({ AuthFlow: "REFRESH_TOKEN_AUTH", AuthParameters: { REFRESH_TOKEN }, ClientId });

  it("answers new IdToken and AccessToken without a RefreshToken, as Cognito does", async () => {
    const tokens = await h.login("server-eu", clientId);
    const res = await refresh(tokens.RefreshToken).expect(200);
    const body = JSON.parse(res.text);
    expect(validateInitiateAuthResponse(body)).toBe(true);
    expect(Object.keys(body.AuthenticationResult).sort()).toEqual([
      "AccessToken",
      "ExpiresIn",
      "IdToken",
      "TokenType",
    ]);
    expect(decodeJwt(body.AuthenticationResult.IdToken)).toMatchObject({ tenant: "acme", token_use: "id" });
  });

  it("refuses an unknown refresh token and one sent with another client", async () => {
    expect(cognitoError(await refresh("made-up-refresh-token"))).toMatchObject({
      type: "NotAuthorizedException",
    });
    const tokens = await h.login("globex-server", otherClientId);
    expect(cognitoError(await refresh(tokens.RefreshToken, clientId))).toMatchObject({
      type: "NotAuthorizedException",
    });
  });

  it("refuses refresh tokens revoked for their user, and keeps the hash only", async () => {
    const tokens = await h.login("server-eu", clientId);
    const revoked = await h.http
      .delete("/admin/tenants/acme/users/server-eu/refresh-tokens")
      .set(adminAuth)
      .expect(200);
    expect(revoked.body.revoked).toBeGreaterThanOrEqual(1);
    expect(cognitoError(await refresh(tokens.RefreshToken))).toEqual({
      status: 400,
      type: "NotAuthorizedException",
      message: "Refresh Token has been revoked",
    });
    const rows = await h.db.refreshToken.findMany();
    expect(JSON.stringify(rows)).not.toContain(tokens.RefreshToken);
  });

  it("refuses an expired refresh token", async () => {
    const tokens = await h.login("ops-admin", clientId);
    h.clock.advance(31 * 86_400_000);
    try {
      expect(cognitoError(await refresh(tokens.RefreshToken))).toMatchObject({
        type: "NotAuthorizedException",
      });
    } finally {
      h.clock.advance(-31 * 86_400_000);
    }
  });
});

describe("the AWS SDK's CognitoIdentityProvider client", () => {
  it("logs in with its endpoint set to the gateway's /auth, and reads our errors as its own", async () => {
    const base = await h.listen();
    const cognito = new CognitoIdentityProviderClient({
      endpoint: `${base}/auth`,
      region: "eu-west-1",
      credentials: { accessKeyId: "unused", secretAccessKey: "unused" },
    });
    try {
      const answer = await cognito.send(
        new InitiateAuthCommand({
          AuthFlow: "USER_PASSWORD_AUTH",
          ClientId: clientId,
          AuthParameters: { USERNAME: "server-eu", PASSWORD },
        }),
      );
      expect(answer.AuthenticationResult?.ExpiresIn).toBe(3600);
      expect(answer.AuthenticationResult?.TokenType).toBe("Bearer");
      expect(decodeJwt(answer.AuthenticationResult!.IdToken!)).toMatchObject({ tenant: "acme" });
      const refreshed = await cognito.send(
        new InitiateAuthCommand({
          AuthFlow: "REFRESH_TOKEN_AUTH",
          ClientId: clientId,
          AuthParameters: { REFRESH_TOKEN: answer.AuthenticationResult!.RefreshToken! },
        }),
      );
      expect(refreshed.AuthenticationResult?.IdToken).toEqual(expect.any(String));
      const failed = cognito.send(
        new InitiateAuthCommand({
          AuthFlow: "USER_PASSWORD_AUTH",
          ClientId: clientId,
          AuthParameters: { USERNAME: "server-eu", PASSWORD: "wrong-password" },
        }),
      );
      await expect(failed).rejects.toBeInstanceOf(NotAuthorizedException);
    } finally {
      cognito.destroy();
    }
  });
});

describe("login throttling", () => {
  it("locks a username at an address after too many failures there, on every replica sharing Redis", async () => {
    await h.createUser("acme", "guessed-user");
    const replica = await h.startInstance();
    const ip = nextIp();
    const attempt = (gateway: typeof h.http, password: string, from: string) =>
      gateway
        .post("/auth")
        .set("X-Amz-Target", INITIATE_AUTH_TARGET)
        .set("Content-Type", "application/x-amz-json-1.1")
        .set("X-Forwarded-For", from)
        .send(JSON.stringify(passwordLogin("guessed-user", password)));
    for (let i = 0; i < 3; i++) {
      await attempt(i % 2 === 0 ? h.http : replica.http, `wrong-${i}-password`, ip).expect(400);
    }
    // Even the right password, at that address, on the replica.
    const res = await attempt(replica.http, PASSWORD, ip);
    expect(cognitoError(res)).toMatchObject({ status: 400, type: "TooManyRequestsException" });
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    // From another address the user logs in.
    await attempt(replica.http, PASSWORD, nextIp()).expect(200);
  });

  it("refuses an address after too many failures, whatever the username", async () => {
    const ip = nextIp();
    for (let i = 0; i < 5; i++)
      await h.initiateAuth(passwordLogin(`someone-${i}`, "wrong-password"), ip).expect(400);
    expect(cognitoError(await h.initiateAuth(passwordLogin("server-eu", PASSWORD), ip)).type).toBe(
      "TooManyRequestsException",
    );
    await h.initiateAuth(passwordLogin("server-eu", PASSWORD), nextIp()).expect(200);
  });

  it("clears a username's failures at an address when it logs in there", async () => {
    await h.createUser("acme", "forgetful");
    const ip = nextIp();
    for (let i = 0; i < 2; i++)
      await h.initiateAuth(passwordLogin("forgetful", "wrong-password"), ip).expect(400);
    await h.initiateAuth(passwordLogin("forgetful", PASSWORD), ip).expect(200);
    for (let i = 0; i < 2; i++)
      await h.initiateAuth(passwordLogin("forgetful", "wrong-password"), ip).expect(400);
    await h.initiateAuth(passwordLogin("forgetful", PASSWORD), ip).expect(200);
  });
});

describe("the log", () => {
  it("holds no password or token of a login logged at debug level", async () => {
    await h.createUser("acme", "logged-user");
    const before = h.logs.lines.length;
    const tokens = await h.login("logged-user", clientId);
    const refreshed = await h
      .initiateAuth({
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken },
        ClientId: clientId,
      })
      .expect(200);
    const lines = h.logs.lines.slice(before).join("");
    expect(lines).toContain('"InitiateAuth request"');
    expect(lines).toContain('"InitiateAuth answer"');
    expect(lines).toContain("[redacted]");
    const idToken = JSON.parse(refreshed.text).AuthenticationResult.IdToken as string;
    for (const secret of [PASSWORD, tokens.IdToken, tokens.AccessToken, tokens.RefreshToken, idToken]) {
      expect(lines).not.toContain(secret);
      // Nor the signature alone, which is what makes a token usable.
      expect(lines).not.toContain(secret.split(".").pop()!);
    }
    expect(h.logs.text).not.toContain(PASSWORD);
  });
});
