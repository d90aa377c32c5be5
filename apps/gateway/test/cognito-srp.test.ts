import { createHmac } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import {
  validateCognitoError,
  validateInitiateAuthResponse,
  validateRespondToAuthChallengeResponse,
  validateTenant,
  validateTenantDetails,
} from "@arena/contracts";
import {
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
  NotAuthorizedException,
  RespondToAuthChallengeCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import * as cognitoJs from "amazon-cognito-identity-js";
import {
  AuthenticationDetails,
  CognitoUser,
  CognitoUserPool,
  type CognitoUserSession,
} from "amazon-cognito-identity-js";
import fc from "fast-check";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { INITIATE_AUTH_TARGET, RESPOND_TO_AUTH_CHALLENGE_TARGET } from "../src/identity/cognito-routes.js";
import { migrationsDir } from "../src/schema-version.js";
import { adminAuth, createHarness, type Harness, nextIp, PASSWORD } from "./harness.js";

/** The library's SRP helper and clock text, which it exports but its types leave out. */
interface AuthenticationHelper {
  N: { toString(radix: number): string; constructor: new (hex: string, radix: number) => unknown };
  largeAValue: { toString(radix: number): string };
  getPasswordAuthenticationKey(
    username: string,
    password: string,
    B: unknown,
    salt: unknown,
    callback: (err: unknown, hkdf: Buffer) => void,
  ): void;
}
const { AuthenticationHelper, DateHelper } = cognitoJs as unknown as {
  AuthenticationHelper: new (poolName: string) => AuthenticationHelper;
  DateHelper: new () => { getNowString(): string };
};

let h: Harness;
let url: string;
let clientId: string;
let otherClientId: string;
let userPoolId: string;
beforeAll(async () => {
  h = await createHarness({
    env: {
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: "3",
      LOGIN_FAILURES_PER_USERNAME: "100",
      LOGIN_FAILURES_PER_ADDRESS: "1000",
    },
  });
  url = await h.listen();
  clientId = await h.createTenant("srp-studio");
  otherClientId = await h.createTenant("srp-other");
  userPoolId = (await h.http.get("/admin/tenants/srp-studio").set(adminAuth).expect(200)).body.userPoolId;
  await h.createUser("srp-studio", "Server-EU");
  await h.createUser("srp-other", "other-server");
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const poolName = () => userPoolId.split("_")[1] as string;

/** amazon-cognito-identity-js as a game uses it: no flow set (USER_SRP_AUTH), the gateway as endpoint. */
function jsLogin(username: string, password: string, client = clientId): Promise<CognitoUserSession> {
  const pool = new CognitoUserPool({ UserPoolId: userPoolId, ClientId: client, endpoint: `${url}/auth/` });
  const user = new CognitoUser({ Username: username, Pool: pool });
  return new Promise((resolve, reject) => {
    user.authenticateUser(new AuthenticationDetails({ Username: username, Password: password }), {
      onSuccess: resolve,
      onFailure: reject,
    });
  });
}

type Challenge = Record<"SALT" | "SRP_B" | "SECRET_BLOCK" | "USER_ID_FOR_SRP" | "USERNAME", string>;

/** The client's side of SRP, computed by the js library's own AuthenticationHelper (not the gateway's code). */
async function proof(
  helper: AuthenticationHelper,
  challenge: Challenge,
  password: string,
  timestamp = new DateHelper().getNowString(),
) {
  const BigInteger = helper.N.constructor;
  const key = await new Promise<Buffer>((resolve, reject) =>
    helper.getPasswordAuthenticationKey(
      challenge.USER_ID_FOR_SRP,
      password,
      new BigInteger(challenge.SRP_B, 16),
      new BigInteger(challenge.SALT, 16),
      (err: unknown, hkdf: Buffer) => (err ? reject(err) : resolve(hkdf)),
    ),
  );
  const signature = createHmac("sha256", key)
    .update(Buffer.from(poolName(), "utf8"))
    .update(Buffer.from(challenge.USER_ID_FOR_SRP, "utf8"))
    .update(Buffer.from(challenge.SECRET_BLOCK, "base64"))
    .update(Buffer.from(timestamp, "utf8"))
    .digest("base64");
  return {
    USERNAME: challenge.USER_ID_FOR_SRP,
    PASSWORD_CLAIM_SECRET_BLOCK: challenge.SECRET_BLOCK,
    PASSWORD_CLAIM_SIGNATURE: signature,
    TIMESTAMP: timestamp,
  };
}

const srpA = (helper: AuthenticationHelper) => helper.largeAValue.toString(16);

/** Raw HTTP, from a chosen address (the throttle counts per address). */
const call = (target: string, body: object, ip: string) =>
  h.http
    .post("/auth/")
    .set("X-Amz-Target", target)
    .set("Content-Type", "application/x-amz-json-1.1")
    .set("X-Forwarded-For", ip)
    .send(JSON.stringify(body));

async function challengeOf(username: string, ip: string, client = clientId) {
  const helper = new AuthenticationHelper(poolName());
  const res = await call(
    INITIATE_AUTH_TARGET,
    {
      AuthFlow: "USER_SRP_AUTH",
      ClientId: client,
      AuthParameters: { USERNAME: username, SRP_A: srpA(helper) },
    },
    ip,
  );
  expect(res.status).toBe(200);
  return { helper, challenge: JSON.parse(res.text).ChallengeParameters as Challenge };
}

/** A whole SRP login over raw HTTP: the RespondToAuthChallenge answer. */
async function rawSrpLogin(username: string, password: string, ip: string, client = clientId) {
  const { helper, challenge } = await challengeOf(username, ip, client);
  const responses = await proof(helper, challenge, password);
  return call(
    RESPOND_TO_AUTH_CHALLENGE_TARGET,
    { ChallengeName: "PASSWORD_VERIFIER", ClientId: client, ChallengeResponses: responses },
    ip,
  );
}

function cognitoError(res: { status: number; headers: Record<string, string>; text: string }) {
  const body = JSON.parse(res.text);
  expect(validateCognitoError(body)).toBe(true);
  expect(res.headers["x-amzn-errortype"]).toBe(`${body.__type}:`);
  return { status: res.status, type: body.__type as string, message: body.message as string };
}

const WRONG = { status: 400, type: "NotAuthorizedException", message: "Incorrect username or password." };

describe("user pool ids", () => {
  it("are shown when a tenant is created, listed and read: <region>_<name>, the name derived from the id", async () => {
    const created = await h.http
      .post("/admin/tenants")
      .set(adminAuth)
      .send({ tenantId: "pool-check", name: "Pool check" })
      .expect(201);
    expect(validateTenant(created.body)).toBe(true);
    expect(created.body.userPoolId).toMatch(/^eu-west-1_[0-9a-f]{12}$/);
    const details = await h.http.get("/admin/tenants/pool-check").set(adminAuth).expect(200);
    expect(validateTenantDetails(details.body)).toBe(true);
    expect(details.body.userPoolId).toBe(created.body.userPoolId);
    const list = await h.http.get("/admin/tenants").set(adminAuth).expect(200);
    expect(list.body.tenants.find((t: { tenantId: string }) => t.tenantId === "pool-check").userPoolId).toBe(
      created.body.userPoolId,
    );
  });

  it("gives a tenant from before the column the name its migration writes, the same the gateway derives", async () => {
    // A tenant as a gateway older than the column inserts it: no user pool name.
    await h.db.$executeRawUnsafe(`INSERT INTO tenants (id, name) VALUES ('legacy-tenant', 'Legacy')`);
    const derived = (await h.http.get("/admin/tenants/legacy-tenant").set(adminAuth).expect(200)).body
      .userPoolId;
    const folder = (await readdir(migrationsDir)).find((f) => f.endsWith("_srp_verifiers_and_user_pools"));
    const sql = await readFile(path.join(migrationsDir, folder as string, "migration.sql"), "utf8");
    await h.db.$executeRawUnsafe(sql.slice(sql.indexOf("UPDATE")));
    const [row] = await h.db.$queryRawUnsafe<{ user_pool_name: string }[]>(
      `SELECT user_pool_name FROM tenants WHERE id = 'legacy-tenant'`,
    );
    expect(`eu-west-1_${row?.user_pool_name}`).toBe(derived);
  });
});

describe("USER_SRP_AUTH with amazon-cognito-identity-js in its default configuration", () => {
  it("logs in, and the IdToken verifies with the gateway's JWKS", async () => {
    const session = await jsLogin("Server-EU", PASSWORD);
    const jwks = createRemoteJWKSet(new URL(`${url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(session.getIdToken().getJwtToken(), jwks, {
      issuer: "http://gateway.test",
      audience: clientId,
    });
    expect(payload).toMatchObject({ tenant: "srp-studio", token_use: "id", "cognito:username": "Server-EU" });
    expect(session.getRefreshToken().getToken()).toEqual(expect.any(String));
  });

  it("logs in whatever case the name is typed in", async () => {
    await expect(jsLogin("server-eu", PASSWORD)).resolves.toBeDefined();
  });

  it("fails a wrong password, an unknown user and another tenant's user alike", async () => {
    const failures = await Promise.all(
      [
        jsLogin("Server-EU", "not-the-password"),
        jsLogin("nobody-at-all", PASSWORD),
        jsLogin("other-server", PASSWORD),
      ].map((login) =>
        login.then(
          () => undefined,
          (err: { code: string; message: string }) => err,
        ),
      ),
    );
    for (const err of failures) {
      expect({ code: err?.code, message: err?.message }).toEqual({
        code: "NotAuthorizedException",
        message: "Incorrect username or password.",
      });
    }
  });
});

describe("the PASSWORD_VERIFIER challenge", () => {
  it("carries Cognito's five parameters, and an unknown name's cannot be told from a user's", async () => {
    const ip = nextIp();
    const known = (await challengeOf("Server-EU", ip)).challenge;
    const unknown = (await challengeOf("Nobody-Here", ip)).challenge;
    for (const c of [known, unknown]) {
      expect(Object.keys(c).sort()).toEqual(["SALT", "SECRET_BLOCK", "SRP_B", "USERNAME", "USER_ID_FOR_SRP"]);
      expect(c.SALT).toMatch(/^(00)?[0-9a-f]{2,32}$/);
      expect(c.SRP_B).toMatch(/^[0-9a-f]{700,768}$/);
    }
    expect(known.USER_ID_FOR_SRP).toBe("server-eu");
    expect(unknown.USER_ID_FOR_SRP).toBe("nobody-here");
    expect(Math.abs(known.SECRET_BLOCK.length - unknown.SECRET_BLOCK.length)).toBeLessThanOrEqual(4);
    // The stand-in salt stays put like a real one; B is new every time.
    const again = (await challengeOf("nobody-here", ip)).challenge;
    expect(again.SALT).toBe(unknown.SALT);
    expect(again.SRP_B).not.toBe(unknown.SRP_B);
    expect((await challengeOf("Server-EU", ip)).challenge.SALT).toBe(known.SALT);
  });

  it("refuses a malformed SRP_A with InvalidParameterException naming it", async () => {
    const N = new AuthenticationHelper("x").N.toString(16);
    for (const SRP_A of ["0", "000", N, "zz12", "f".repeat(1025)]) {
      const res = await call(
        INITIATE_AUTH_TARGET,
        { AuthFlow: "USER_SRP_AUTH", ClientId: clientId, AuthParameters: { USERNAME: "Server-EU", SRP_A } },
        nextIp(),
      );
      const err = cognitoError(res);
      expect(err.type).toBe("InvalidParameterException");
      expect(err.message).toContain("SRP_A");
    }
    const missing = await call(
      INITIATE_AUTH_TARGET,
      { AuthFlow: "USER_SRP_AUTH", ClientId: clientId, AuthParameters: { USERNAME: "Server-EU" } },
      nextIp(),
    );
    expect(cognitoError(missing).message).toBe("Missing required parameter SRP_A");
  });
});

describe("USER_SRP_AUTH with the AWS SDK v3", () => {
  it("InitiateAuthCommand then RespondToAuthChallengeCommand answers the same AuthenticationResult as a password login", async () => {
    const cognito = new CognitoIdentityProviderClient({
      endpoint: `${url}/auth`,
      region: "eu-west-1",
      credentials: { accessKeyId: "unused", secretAccessKey: "unused" },
    });
    const helper = new AuthenticationHelper(poolName());
    const started = await cognito.send(
      new InitiateAuthCommand({
        AuthFlow: "USER_SRP_AUTH",
        ClientId: clientId,
        AuthParameters: { USERNAME: "Server-EU", SRP_A: srpA(helper) },
      }),
    );
    expect(started.ChallengeName).toBe("PASSWORD_VERIFIER");
    const responses = await proof(helper, started.ChallengeParameters as Challenge, PASSWORD);
    const done = await cognito.send(
      new RespondToAuthChallengeCommand({
        ChallengeName: "PASSWORD_VERIFIER",
        ClientId: clientId,
        ChallengeResponses: responses,
      }),
    );
    expect(done.AuthenticationResult).toEqual({
      IdToken: expect.any(String),
      AccessToken: expect.any(String),
      RefreshToken: expect.any(String),
      ExpiresIn: 3600,
      TokenType: "Bearer",
    });
    // The refresh token works like a password login's.
    const refreshed = await cognito.send(
      new InitiateAuthCommand({
        AuthFlow: "REFRESH_TOKEN_AUTH",
        ClientId: clientId,
        AuthParameters: { REFRESH_TOKEN: done.AuthenticationResult?.RefreshToken as string },
      }),
    );
    expect(refreshed.AuthenticationResult?.IdToken).toEqual(expect.any(String));
    // The same answer, replayed, is refused: each SECRET_BLOCK is answered once.
    await expect(
      cognito.send(
        new RespondToAuthChallengeCommand({
          ChallengeName: "PASSWORD_VERIFIER",
          ClientId: clientId,
          ChallengeResponses: responses,
        }),
      ),
    ).rejects.toBeInstanceOf(NotAuthorizedException);
  });

  it("answers in Cognito's media type and shapes, and counts challenges apart from logins", async () => {
    const ip = nextIp();
    const { helper, challenge } = await challengeOf("Server-EU", ip);
    const res = await call(
      RESPOND_TO_AUTH_CHALLENGE_TARGET,
      {
        ChallengeName: "PASSWORD_VERIFIER",
        ClientId: clientId,
        ChallengeResponses: await proof(helper, challenge, PASSWORD),
      },
      ip,
    ).expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/x-amz-json-1\.1/);
    expect(validateRespondToAuthChallengeResponse(JSON.parse(res.text))).toBe(true);
    const init = await call(
      INITIATE_AUTH_TARGET,
      { AuthFlow: "USER_SRP_AUTH", ClientId: clientId, AuthParameters: { USERNAME: "x", SRP_A: "2" } },
      ip,
    ).expect(200);
    expect(validateInitiateAuthResponse(JSON.parse(init.text))).toBe(true);
    const metrics = await h.http.get("/metrics").expect(200);
    expect(metrics.text).toMatch(/gateway_logins_total\{outcome="challenge",service="gateway"\} [1-9]/);
  });
});

describe("users created before SRP", () => {
  it("fail SRP until a password login gives them a verifier, then log in with SRP", async () => {
    await h.createUser("srp-studio", "old-server");
    await h.db.$executeRawUnsafe(
      `UPDATE users SET srp_salt = NULL, srp_verifier = NULL WHERE username_normalized = 'old-server'`,
    );
    const ip = nextIp();
    expect(cognitoError(await rawSrpLogin("old-server", PASSWORD, ip))).toEqual(WRONG);
    await h.login("old-server", clientId);
    expect((await rawSrpLogin("old-server", PASSWORD, ip)).status).toBe(200);
    await expect(jsLogin("old-server", PASSWORD)).resolves.toBeDefined();
  });
});

describe("refusals", () => {
  it("counts SRP failures in the password login's throttle", async () => {
    await h.createUser("srp-studio", "throttled-server");
    const ip = nextIp();
    for (let i = 0; i < 3; i++) {
      expect(cognitoError(await rawSrpLogin("throttled-server", "wrong-password", ip))).toEqual(WRONG);
    }
    const locked = await rawSrpLogin("throttled-server", PASSWORD, ip);
    expect(cognitoError(locked).type).toBe("TooManyRequestsException");
    expect(Number(locked.headers["retry-after"])).toBeGreaterThan(0);
    // The same lock holds for the password flow, and other addresses are not locked.
    const password = await h.initiateAuth(
      {
        AuthFlow: "USER_PASSWORD_AUTH",
        ClientId: clientId,
        AuthParameters: { USERNAME: "THROTTLED-server", PASSWORD },
      },
      ip,
    );
    expect(cognitoError(password).type).toBe("TooManyRequestsException");
    expect((await rawSrpLogin("throttled-server", PASSWORD, nextIp())).status).toBe(200);
  });

  it("refuses a forged, altered, other client's or other user's SECRET_BLOCK", async () => {
    const ip = nextIp();
    const { helper, challenge } = await challengeOf("Server-EU", ip);
    const bytes = Buffer.from(challenge.SECRET_BLOCK, "base64");
    bytes[40] = (bytes[40] as number) ^ 1;
    const altered = { ...challenge, SECRET_BLOCK: bytes.toString("base64") };
    const unknown = (await challengeOf("someone-else", ip)).challenge;
    const cases = [
      { challenge: altered, client: clientId },
      {
        challenge: { ...challenge, SECRET_BLOCK: Buffer.alloc(900, 7).toString("base64") },
        client: clientId,
      },
      { challenge, client: otherClientId },
      { challenge: { ...challenge, SECRET_BLOCK: unknown.SECRET_BLOCK }, client: clientId },
    ];
    for (const c of cases) {
      const res = await call(
        RESPOND_TO_AUTH_CHALLENGE_TARGET,
        {
          ChallengeName: "PASSWORD_VERIFIER",
          ClientId: c.client,
          ChallengeResponses: await proof(helper, c.challenge, PASSWORD),
        },
        ip,
      );
      expect(cognitoError(res)).toMatchObject({ type: "NotAuthorizedException", message: /SECRET_BLOCK/ });
    }
  });

  it("refuses a TIMESTAMP more than 5 minutes off, and one not in Cognito's format", async () => {
    const ip = nextIp();
    const { helper, challenge } = await challengeOf("Server-EU", ip);
    const old = new Date(Date.now() - 10 * 60_000);
    const stale = old.toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, "$1 $3 $2 $5 UTC $4");
    const res = await call(
      RESPOND_TO_AUTH_CHALLENGE_TARGET,
      {
        ChallengeName: "PASSWORD_VERIFIER",
        ClientId: clientId,
        ChallengeResponses: await proof(helper, challenge, PASSWORD, stale),
      },
      ip,
    );
    expect(cognitoError(res)).toMatchObject({ type: "NotAuthorizedException", message: /TIMESTAMP/ });
    const iso = await call(
      RESPOND_TO_AUTH_CHALLENGE_TARGET,
      {
        ChallengeName: "PASSWORD_VERIFIER",
        ClientId: clientId,
        ChallengeResponses: await proof(helper, challenge, PASSWORD, new Date().toISOString()),
      },
      ip,
    );
    expect(cognitoError(iso)).toMatchObject({ type: "InvalidParameterException", message: /TIMESTAMP/ });
  });
});

describe("fuzzing the two request bodies", () => {
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 800 }),
    fc.constant(""),
  );
  const value = fc.oneof(text, fc.integer(), fc.constant(null), fc.array(text, { maxLength: 2 }));
  const initiate = fc.record(
    {
      AuthFlow: fc.oneof(fc.constant("USER_SRP_AUTH"), text),
      ClientId: fc.oneof(fc.constant("CLIENT"), text),
      AuthParameters: fc.oneof(
        fc.record(
          { USERNAME: fc.oneof(text, fc.constant("Server-EU")), SRP_A: fc.oneof(text, value) },
          { requiredKeys: [] },
        ),
        value,
      ),
    },
    { requiredKeys: [] },
  );
  const respond = fc.record(
    {
      ChallengeName: fc.oneof(fc.constant("PASSWORD_VERIFIER"), text),
      ClientId: fc.oneof(fc.constant("CLIENT"), text),
      ChallengeResponses: fc.oneof(
        fc.dictionary(
          fc.constantFrom(
            "USERNAME",
            "PASSWORD_CLAIM_SECRET_BLOCK",
            "PASSWORD_CLAIM_SIGNATURE",
            "TIMESTAMP",
            "X",
          ),
          value,
        ),
        value,
      ),
      Session: value,
    },
    { requiredKeys: [] },
  );
  const withClient = (body: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(body).replaceAll('"CLIENT"', JSON.stringify(clientId)));

  it("answers every body in Cognito's shape, never a 500, and a reference login still answers as before", async () => {
    const reference = async () => {
      const res = await rawSrpLogin("Server-EU", PASSWORD, "203.0.113.9");
      expect(res.status).toBe(200);
      expect(Object.keys(JSON.parse(res.text).AuthenticationResult).sort()).toEqual([
        "AccessToken",
        "ExpiresIn",
        "IdToken",
        "RefreshToken",
        "TokenType",
      ]);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          initiate.map((b) => ["i", b] as const),
          respond.map((b) => ["r", b] as const),
        ),
        async ([kind, body]) => {
          const target = kind === "i" ? INITIATE_AUTH_TARGET : RESPOND_TO_AUTH_CHALLENGE_TARGET;
          const res = await call(target, withClient(body), nextIp());
          expect(res.status).toBeLessThan(500);
          if (res.status !== 200) expect(validateCognitoError(JSON.parse(res.text))).toBe(true);
          await reference();
        },
      ),
      // Each reference login runs the library's SRP math (about a second on a busy 2-core machine).
      { numRuns: 30 },
    );
  }, 300_000);
});

describe("challenge lifetime", () => {
  it("refuses an answer to a challenge older than 3 minutes", async () => {
    const ip = nextIp();
    const { helper, challenge } = await challengeOf("Server-EU", ip);
    h.clock.advance(181_000);
    const res = await call(
      RESPOND_TO_AUTH_CHALLENGE_TARGET,
      {
        ChallengeName: "PASSWORD_VERIFIER",
        ClientId: clientId,
        ChallengeResponses: await proof(helper, challenge, PASSWORD),
      },
      ip,
    );
    expect(cognitoError(res)).toMatchObject({ type: "NotAuthorizedException", message: /expired/ });
  });
});
