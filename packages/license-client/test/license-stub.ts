import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Edition,
  type ErrorCode,
  errorCodeInfo,
  LEASE_AUDIENCE,
  LEASE_ISSUER,
  type Problem,
  problemType,
  type ValidateLicenseResponse,
  validateValidateLicenseRequest,
} from "@arena/contracts";
import express, { type Response } from "express";
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from "jose";

/**
 * What the stub answers to `POST /v1/licenses/validate`:
 * - `community` / `advanced`: 200 with a lease for that edition, signed by the published key;
 * - `revoked`: 403 LICENSE_INVALID problem;
 * - `error`: 500 INTERNAL problem;
 * - `forged`: a lease signed by a key that is not published, under the published `kid`;
 * - `forgedUnknownKid`: the same under a `kid` the JWKS does not list;
 * - `wrongAudience`: a correctly signed lease for another product;
 * - `proxyForbidden`: a bare 403 HTML page, as a misconfigured proxy would answer.
 */
export type StubMode =
  | "community"
  | "advanced"
  | "revoked"
  | "error"
  | "forged"
  | "forgedUnknownKid"
  | "wrongAudience"
  | "proxyForbidden";

export interface StubRequest {
  path: string;
  requestId: string | undefined;
  body: unknown;
}

export interface LicenseStub {
  url: string;
  mode: StubMode;
  /** Lifetime of the leases it signs. */
  leaseTtlMs: number;
  /** When true the JWKS endpoint answers 500 (the validate endpoint keeps working). */
  jwksFailing: boolean;
  /** When true every request is read and recorded but never answered: a hung service. */
  hanging: boolean;
  /** The detail of the 403 problem; the license service may echo the key, the client must not. */
  revokedDetail: string;
  readonly requests: StubRequest[];
  /** Closes the listening socket and every connection: the service becomes unreachable. */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

export const STUB_LICENSE_ID = "lic_7Qm2xTest";
const KID = "lease-key-1";

export async function startLicenseStub(options: {
  licenseKey: string;
  now: () => number;
}): Promise<LicenseStub> {
  const { licenseKey, now } = options;
  const signing = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const attacker = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const publicJwk = { ...(await exportJWK(signing.publicKey)), kid: KID, alg: "EdDSA", use: "sig" };

  const sign = (edition: Edition, key: CryptoKey, kid: string, audience: string) => {
    const iat = Math.floor(now() / 1000);
    return new SignJWT({ edition })
      .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
      .setIssuer(LEASE_ISSUER)
      .setAudience(audience)
      .setSubject(STUB_LICENSE_ID)
      .setIssuedAt(iat)
      .setExpirationTime(Math.floor((now() + stub.leaseTtlMs) / 1000))
      .sign(key);
  };

  const problem = (res: Response, requestId: string, code: ErrorCode, detail: string) => {
    const { status, title } = errorCodeInfo[code];
    const body: Problem = { type: problemType(code), title, status, detail, code, requestId };
    res.status(status).type("application/problem+json").send(JSON.stringify(body));
  };

  const app = express();
  app.use(express.json());
  app.use((req, res, next) => {
    const requestId = req.get("x-request-id");
    stub.requests.push({ path: req.path, requestId, body: req.body });
    if (stub.hanging) return; // the connection stays open until the client gives up, or goDown()
    if (requestId) res.setHeader("x-request-id", requestId);
    next();
  });

  app.get("/.well-known/jwks.json", (req, res) => {
    if (stub.jwksFailing) return problem(res, req.get("x-request-id") ?? "", "INTERNAL", "Key store down");
    res.json({ keys: [publicJwk] });
  });

  app.post("/v1/licenses/validate", async (req, res) => {
    const requestId = req.get("x-request-id") ?? "";
    if (!validateValidateLicenseRequest(req.body)) {
      return problem(res, requestId, "VALIDATION_FAILED", "Body must be {licenseKey}");
    }
    const mode = stub.mode;
    if (mode === "proxyForbidden") {
      res.status(403).type("text/html").send("<html><body>403 Forbidden</body></html>");
      return;
    }
    if (mode === "error") return problem(res, requestId, "INTERNAL", "An unexpected error occurred");
    if (mode === "revoked" || req.body.licenseKey !== licenseKey) {
      return problem(res, requestId, "LICENSE_INVALID", stub.revokedDetail);
    }
    const edition: Edition = mode === "advanced" ? "advanced" : "community";
    const lease =
      mode === "forged"
        ? await sign("advanced", attacker.privateKey, KID, LEASE_AUDIENCE)
        : mode === "forgedUnknownKid"
          ? await sign("advanced", attacker.privateKey, "attacker-key", LEASE_AUDIENCE)
          : mode === "wrongAudience"
            ? await sign(edition, signing.privateKey, KID, "arena-something-else")
            : await sign(edition, signing.privateKey, KID, LEASE_AUDIENCE);
    const body: ValidateLicenseResponse = {
      edition,
      expiresAt: new Date(now() + stub.leaseTtlMs).toISOString(),
      lease,
    };
    res.json(body);
  });

  let server: Server = await listen(app, 0);
  const port = (server.address() as AddressInfo).port;

  const stub: LicenseStub = {
    url: `http://127.0.0.1:${port}`,
    mode: "community",
    leaseTtlMs: 24 * 60 * 60_000,
    jwksFailing: false,
    hanging: false,
    revokedDetail: "License key is revoked",
    requests: [],
    async goDown() {
      await shut(server);
    },
    async comeBack() {
      server = await listen(app, port);
    },
    async close() {
      if (server.listening) await shut(server);
    },
  };
  return stub;
}

function listen(app: express.Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, "127.0.0.1", (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}

function shut(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
