import { spawn } from "node:child_process";
import { Agent } from "node:http";
import { fileURLToPath } from "node:url";
import { CognitoJwtVerifier, JwtRsaVerifier } from "aws-jwt-verify";
import { SimpleFetcher } from "aws-jwt-verify/https";
import { SimpleJwksCache } from "aws-jwt-verify/jwk";
import { createRemoteJWKSet, jwtVerify } from "jose";

/**
 * Verifiers studios already run, each configured as its documentation says, against the gateway's
 * live JWKS over HTTP. Each is made afresh for each token, as after its key cache expired, so a
 * revoked key is looked up in the JWKS as it is now. Each answers the claims or throws its refusal.
 */
export interface VerifierTarget {
  /** `{base}/.well-known/jwks.json` of a listening gateway. */
  jwksUri: string;
  /** The gateway's PUBLIC_URL: the tokens' `iss`. */
  issuer: string;
  /** The app client the token was issued to: its `aud`. */
  audience: string;
}

export type Verify = (token: string, target: VerifierTarget) => Promise<Record<string, unknown>>;

/**
 * Runs a verifier in its own process (`verify_jwt.py`, `verify-with-jsonwebtoken.mjs`): the token
 * on stdin, the target as arguments, `{claims}` or `{refused, message}` on stdout.
 */
function verifyInProcess(command: string, script: string): Verify {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return (token, { jwksUri, issuer, audience }) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, [path, jwksUri, issuer, audience]);
      let out = "";
      let errors = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.stderr.on("data", (chunk) => (errors += chunk));
      child.on("error", reject);
      child.on("close", (code) => {
        const answer = out.trim() === "" ? undefined : JSON.parse(out);
        if (code === 0) resolve(answer.claims);
        else reject(new Error(answer ? `${answer.refused}: ${answer.message}` : `exit ${code}: ${errors}`));
      });
      child.stdin.end(token);
    });
}

/** jsonwebtoken with jwks-rsa: Node's most used pair, RS256 as their READMEs configure it. */
export const jsonwebtokenWithJwksRsa = verifyInProcess(process.execPath, "./verify-with-jsonwebtoken.mjs");

/** PyJWT (Debian's python3-jwt) with PyJWKClient, in Debian's own Python. */
export const pythonPyJwt = verifyInProcess("/usr/bin/python3", "./verify_jwt.py");

/** jose's remote key set: the JWKS fetched and matched by `kid` and `alg`. */
export const joseRemoteJwks: Verify = async (token, { jwksUri, issuer, audience }) => {
  const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUri)), { issuer, audience });
  return payload;
};

/**
 * aws-jwt-verify's fetcher speaks HTTPS only; given an HTTP agent, the same fetcher reaches the
 * test's plain-HTTP gateway (in production the JWKS is behind TLS and no agent is needed).
 * `fromUri` answers every JWKS request from that address instead of the one the verifier derived.
 */
function httpJwksCache(fromUri?: string): SimpleJwksCache {
  const fetcher = new SimpleFetcher({ defaultRequestOptions: { agent: new Agent() } });
  return new SimpleJwksCache({
    fetcher: { fetch: (uri, options, data) => fetcher.fetch(fromUri ?? uri, options, data) },
  });
}

/** aws-jwt-verify's verifier for any RS256 issuer. */
export const awsJwtRsaVerifier: Verify = (token, { jwksUri, issuer, audience }) =>
  JwtRsaVerifier.create({ issuer, audience, jwksUri }, { jwksCache: httpJwksCache() }).verify(token);

/**
 * aws-jwt-verify's Cognito verifier, for an IdToken. It derives the issuer and the JWKS address
 * from the user pool id, so it accepts only a gateway whose PUBLIC_URL is
 * `https://cognito-idp.<region>.amazonaws.com/<userPoolId>`, and its requests for AWS's JWKS are
 * answered from the gateway's.
 */
export const awsCognitoIdTokenVerifier: Verify = (token, { jwksUri, issuer, audience }) => {
  const userPoolId = issuer.split("/").pop() ?? "";
  return CognitoJwtVerifier.create(
    { userPoolId, tokenUse: "id", clientId: audience },
    { jwksCache: httpJwksCache(jwksUri) },
  ).verify(token);
};
