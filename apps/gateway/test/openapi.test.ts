import { existsSync } from "node:fs";
import { HOSTED_OPERATIONS, operationErrorStatuses, SCHEMA_NAMES } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { type Browser, chromium } from "playwright-core";
import { WEBSOCKET_SCHEMA_NAMES } from "../src/openapi/openapi-document.js";
import { createHarness, type Harness } from "./harness.js";

/** Debian's chromium (playwright's own browser download cannot run here). */
const CHROMIUM = "/usr/bin/chromium";

let h: Harness;
type Responses = Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, { responses: Responses; security?: unknown; requestBody?: unknown }>>;
  components: {
    schemas: Record<string, unknown>;
    requestBodies: Record<string, { content: Record<string, { schema: { required?: string[] } }> }>;
  };
};
beforeAll(async () => {
  h = await createHarness();
  doc = (await h.http.get("/openapi.json").expect(200)).body;
});
afterAll(async () => {
  await h?.close();
});

/** Every `$ref` in a document. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => (key === "$ref" ? [child as string] : refs(child)));
}

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1 in its default dialect, its server the gateway that serves it", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc).not.toHaveProperty("jsonSchemaDialect");
    expect((doc as unknown as { servers: { url: string }[] }).servers.map((s) => s.url)).toEqual(["/"]);
  });

  it("has as components the schemas it refers to and the WebSocket's frames, not other services' shapes", () => {
    const referred = new Set(refs(doc.paths).map((r) => r.replace("#/components/schemas/", "")));
    const expected = SCHEMA_NAMES.filter(
      (name) => referred.has(name) || WEBSOCKET_SCHEMA_NAMES.includes(name),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(expected);
    expect(doc.components.schemas).toHaveProperty("ClientMessage");
    expect(doc.components.schemas).not.toHaveProperty("MatchmakingRequest");
    expect(doc.components.schemas).not.toHaveProperty("ValidateLicenseRequest");
  });

  it("documents every hosted operation of the action table with its answers, errors and security", () => {
    for (const op of HOSTED_OPERATIONS) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry).toBeDefined();
      const statuses = [...Object.keys(op.answers), ...operationErrorStatuses(op).map(String)];
      expect(Object.keys(entry!.responses).sort()).toEqual([...new Set(statuses)].sort());
      expect(entry!.security).toEqual([{ idToken: [] }]);
    }
  });

  it("describes 403 as the role check, only where a role may not call the operation", () => {
    const putGame = doc.paths["/games/{gameId}"]!.put!.responses["403"]!;
    expect(putGame.description).toContain("`FORBIDDEN`");
    expect(putGame.description).toContain("role may not call this operation");
    expect(putGame.description).not.toContain("License");
    expect(doc.paths["/games/{gameId}"]!.get!.responses).not.toHaveProperty("403");
  });

  it("lists every code a status stands for, each error a problem+json document", () => {
    const put = doc.paths["/games/{gameId}"]!.put!.responses;
    for (const code of ["VALIDATION_FAILED", "MALFORMED_JSON", "MALFORMED_REQUEST"]) {
      expect(put["400"]!.description).toContain(`\`${code}\``);
    }
    for (const { operation } of operations()) {
      for (const [status, answer] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || operation === doc.paths["/auth"]!.post) continue;
        expect(answer.content).toEqual({
          "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
        });
      }
    }
  });

  it("has a success answer on every operation, 101 on the WebSocket's", () => {
    for (const { path, operation } of operations()) {
      const success = Object.keys(operation.responses).filter((s) => /^2\d\d$/.test(s));
      if (path === "/ws") expect(Object.keys(operation.responses)).toContain("101");
      else expect(success.length).toBeGreaterThan(0);
    }
  });

  it("declares who may call each operation: login and keys are public, the WebSocket takes the IdToken", () => {
    expect(doc.paths["/auth"]!.post!.security).toEqual([]);
    expect(doc.paths["/.well-known/jwks.json"]!.get!.security).toEqual([]);
    expect(doc.paths["/ws"]!.get!.security).toEqual([{ idToken: [] }, { idTokenQuery: [] }]);
    for (const { path, operation } of operations()) {
      if (path.startsWith("/admin/") && path !== "/admin/season/reset") {
        expect(operation.security).toEqual([{ adminToken: [] }]);
      }
    }
  });

  it("describes /auth's two Cognito operations: InitiateAuth and SRP's RespondToAuthChallenge", () => {
    const auth = doc.paths["/auth"]!.post! as unknown as {
      parameters: { name: string; schema: { enum: string[] } }[];
      responses: Responses;
    };
    expect(auth.parameters.find((p) => p.name === "X-Amz-Target")!.schema.enum).toEqual([
      "AWSCognitoIdentityProviderService.InitiateAuth",
      "AWSCognitoIdentityProviderService.RespondToAuthChallenge",
    ]);
    const body = doc.components.requestBodies.CognitoRequest!.content["application/x-amz-json-1.1"]!
      .schema as { oneOf: { required: string[] }[] };
    expect(body.oneOf.map((s) => s.required)).toEqual([
      expect.arrayContaining(["AuthFlow"]),
      expect.arrayContaining(["ChallengeName", "ChallengeResponses"]),
    ]);
    expect(auth.responses["200"]!.content!["application/x-amz-json-1.1"]!.schema).toEqual({
      anyOf: [
        { $ref: "#/components/schemas/InitiateAuthResponse" },
        { $ref: "#/components/schemas/RespondToAuthChallengeResponse" },
      ],
    });
    const initiate = doc.components.schemas.InitiateAuthResponse as {
      properties: Record<string, { enum?: string[]; properties?: Record<string, unknown> }>;
    };
    expect(initiate.properties.ChallengeName!.enum).toEqual(["PASSWORD_VERIFIER"]);
    expect(Object.keys(initiate.properties.ChallengeParameters!.properties!)).toEqual(
      expect.arrayContaining(["SALT", "SRP_B", "SECRET_BLOCK", "USER_ID_FOR_SRP"]),
    );
  });

  it("leaves a request field with a default optional, its schema inline under the request body", () => {
    const body = doc.components.requestBodies.GameConfigRequest!.content["application/json"]!.schema;
    expect(body).not.toHaveProperty("$ref");
    expect(body.required ?? []).not.toContain("targetWaitingTime");
    expect(doc.paths["/games/{gameId}"]!.put!.requestBody).toEqual({
      $ref: "#/components/requestBodies/GameConfigRequest",
    });
  });

  it("documents the login, the keys, the WebSocket and the admin API", () => {
    for (const [path, method] of [
      ["/auth", "post"],
      ["/.well-known/jwks.json", "get"],
      ["/ws", "get"],
      ["/admin/tenants", "post"],
      ["/admin/tenants/{tenantId}", "get"],
      ["/admin/tenants/{tenantId}", "patch"],
      ["/admin/tenants/{tenantId}/clients", "post"],
      ["/admin/tenants/{tenantId}/users", "post"],
      ["/admin/tenants/{tenantId}/users/{username}", "patch"],
      ["/admin/tenants/{tenantId}/users/{username}/refresh-tokens", "delete"],
      ["/admin/tenants/{tenantId}/users/{username}/login-lock", "delete"],
      ["/admin/signing-keys/rotate", "post"],
    ] as const) {
      expect(doc.paths[path]?.[method]).toBeDefined();
    }
  });

  it("refers only to components it defines", () => {
    const missing = refs(doc).filter((r) => {
      const [, kind, name] = r.split("/").slice(1);
      return !(name! in ((doc.components as Record<string, Record<string, unknown>>)[kind!] ?? {}));
    });
    expect(missing).toEqual([]);
  });
});

describe("GET /docs", () => {
  let browser: Browser;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`,
      );
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("shows every operation in a real browser without an error box, with Authorize and Try it out, loading nothing from outside the gateway", async () => {
    const base = await h.listen();
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith("data:")) outside.push(request.url());
    });
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(`${base}/docs`);
    await page.waitForSelector(".opblock", { timeout: 30_000 });
    const shown = await page.$$eval(".opblock-summary-path", (nodes) =>
      nodes.map((n) => n.getAttribute("data-path") ?? n.textContent ?? ""),
    );
    for (const op of HOSTED_OPERATIONS) expect(shown).toContain(op.path);
    expect(shown).toContain("/auth");
    expect(await page.title()).toBe("Arena API reference");
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    // swagger-ui shows what it cannot render of a document in a red box above the operations.
    expect(await page.$$eval(".errors-wrapper", (nodes) => nodes.map((n) => n.textContent))).toEqual([]);
    expect(await page.isVisible("button.authorize")).toBe(true);
    await page.click("#operations-games-putGame .opblock-summary");
    await page.waitForSelector("#operations-games-putGame .try-out__btn", { timeout: 10_000 });
    expect(await page.textContent("#operations-games-putGame .try-out__btn")).toContain("Try it out");
    await page.close();
  }, 60_000);
});
