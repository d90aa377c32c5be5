import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { createHarness, type Harness, PASSWORD } from "./harness.js";

/**
 * The Cognito clients a platform team already runs, unchanged, against a gateway on a real port:
 * boto3 (Debian's python3-boto3) and the AWS CLI v2 (Debian's awscli), with their endpoint set to
 * the gateway's /auth. Debian's own python3, not a pyenv one without the packages.
 */
const PYTHON = "/usr/bin/python3";
const AWS = "/usr/bin/aws";
const run = promisify(execFile);

/**
 * boto3's cognito-idp client as a game backend writes it: USER_PASSWORD_AUTH, then
 * REFRESH_TOKEN_AUTH with the refresh token, then a wrong password caught as the modelled
 * NotAuthorizedException. Prints what it got as one JSON line.
 */
const BOTO3_SCRIPT = `
import json, sys
import boto3
from botocore.exceptions import ClientError

endpoint, client_id, username, password = sys.argv[1:5]
cognito = boto3.client("cognito-idp", endpoint_url=endpoint, region_name="eu-west-1")

def login(flow, parameters):
    return cognito.initiate_auth(AuthFlow=flow, ClientId=client_id, AuthParameters=parameters)

first = login("USER_PASSWORD_AUTH", {"USERNAME": username, "PASSWORD": password})
refreshed = login("REFRESH_TOKEN_AUTH", {"REFRESH_TOKEN": first["AuthenticationResult"]["RefreshToken"]})
try:
    login("USER_PASSWORD_AUTH", {"USERNAME": username, "PASSWORD": password + "-wrong"})
    wrong = None
except cognito.exceptions.NotAuthorizedException as err:
    wrong = {
        "modelled": True,
        "code": err.response["Error"]["Code"],
        "message": err.response["Error"]["Message"],
        "status": err.response["ResponseMetadata"]["HTTPStatusCode"],
        "clientError": isinstance(err, ClientError),
    }
print(json.dumps({
    "login": first["AuthenticationResult"],
    "refreshed": refreshed["AuthenticationResult"],
    "requestId": first["ResponseMetadata"]["RequestId"],
    "wrong": wrong,
}))
`;

let h: Harness;
let url: string;
let clientId: string;
let home: string;
/** Dummy credentials and an empty home: nothing of the machine's AWS setup is read. */
let awsEnv: NodeJS.ProcessEnv;
beforeAll(async () => {
  h = await createHarness();
  url = await h.listen();
  clientId = await h.createTenant("python-studio");
  await h.createUser("python-studio", "boto-server");
  home = await mkdtemp(join(tmpdir(), "arena-aws-home-"));
  awsEnv = {
    PATH: process.env.PATH,
    HOME: home,
    AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "dummy-secret-for-signing-only",
    AWS_DEFAULT_REGION: "eu-west-1",
    AWS_CONFIG_FILE: join(home, "config"),
    AWS_SHARED_CREDENTIALS_FILE: join(home, "credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_PAGER: "",
  };
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** The token verified with the gateway's published keys, as any verifier would. */
async function verified(token: string) {
  const jwks = createRemoteJWKSet(new URL(`${url}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(token, jwks, { issuer: "http://gateway.test", audience: clientId });
  return payload;
}

/** A token the gateway accepts on a hosted route (stats is the harness's stub). */
async function acceptedBy(token: string) {
  return (await h.http.get("/seasons").set("Authorization", token)).status;
}

describe("boto3 cognito-idp with endpoint_url at the gateway", () => {
  it("logs in with USER_PASSWORD_AUTH, refreshes, and gets NotAuthorizedException for a wrong password", async () => {
    const { stdout } = await run(
      PYTHON,
      ["-c", BOTO3_SCRIPT, `${url}/auth`, clientId, "boto-server", PASSWORD],
      {
        env: awsEnv,
        timeout: 60_000,
      },
    );
    const out = JSON.parse(stdout) as {
      login: Record<string, string | number>;
      refreshed: Record<string, string | number>;
      requestId: string;
      wrong: {
        modelled: boolean;
        code: string;
        message: string;
        status: number;
        clientError: boolean;
      } | null;
    };
    expect(out.login).toMatchObject({
      TokenType: "Bearer",
      ExpiresIn: 3600,
      RefreshToken: expect.any(String),
    });
    expect(await verified(out.login.IdToken as string)).toMatchObject({
      tenant: "python-studio",
      role: "server",
      token_use: "id",
      "cognito:username": "boto-server",
    });
    expect(await acceptedBy(out.login.IdToken as string)).toBe(200);
    // REFRESH_TOKEN_AUTH: new Id and Access tokens, no new refresh token, as Cognito answers.
    expect(out.refreshed).not.toHaveProperty("RefreshToken");
    expect(out.refreshed.IdToken).not.toBe(out.login.IdToken);
    expect(await verified(out.refreshed.IdToken as string)).toMatchObject({
      tenant: "python-studio",
      token_use: "id",
      "cognito:username": "boto-server",
    });
    expect(await acceptedBy(out.refreshed.IdToken as string)).toBe(200);
    expect(out.requestId).toEqual(expect.any(String));
    expect(out.wrong).toEqual({
      modelled: true,
      code: "NotAuthorizedException",
      message: "Incorrect username or password.",
      status: 400,
      clientError: true,
    });
  }, 90_000);
});

describe("AWS CLI v2 cognito-idp initiate-auth with --endpoint-url at the gateway", () => {
  const cli = (password: string) =>
    run(
      AWS,
      [
        "cognito-idp",
        "initiate-auth",
        "--endpoint-url",
        `${url}/auth`,
        "--region",
        "eu-west-1",
        "--no-sign-request",
        "--output",
        "json",
        "--auth-flow",
        "USER_PASSWORD_AUTH",
        "--client-id",
        clientId,
        "--auth-parameters",
        `USERNAME=boto-server,PASSWORD=${password}`,
      ],
      { env: awsEnv, timeout: 60_000 },
    );

  it("answers the AuthenticationResult, an IdToken the gateway accepts", async () => {
    const { stdout } = await cli(PASSWORD);
    const answer = JSON.parse(stdout) as { AuthenticationResult: Record<string, string | number> };
    expect(answer.AuthenticationResult).toMatchObject({ TokenType: "Bearer", ExpiresIn: 3600 });
    expect(await verified(answer.AuthenticationResult.IdToken as string)).toMatchObject({
      tenant: "python-studio",
      role: "server",
      "cognito:username": "boto-server",
    });
    expect(await acceptedBy(answer.AuthenticationResult.IdToken as string)).toBe(200);
  }, 90_000);

  it("reports NotAuthorizedException for a wrong password, exiting with an error", async () => {
    const failure = await cli(`${PASSWORD}-wrong`).then(
      () => null,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failure?.code).toBe(254);
    expect(failure?.stderr).toContain(
      "An error occurred (NotAuthorizedException) when calling the InitiateAuth operation: Incorrect username or password.",
    );
  }, 90_000);
});
