import { existsSync } from "node:fs";
import { HOSTED_OPERATIONS, SCHEMA_NAMES } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { type Browser, chromium } from "playwright-core";
import { createHarness, type Harness } from "./harness.js";

/** Debian's chromium (playwright's own browser download cannot run here). */
const CHROMIUM = "/usr/bin/chromium";

let h: Harness;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>;
  components: { schemas: Record<string, unknown> };
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

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1 with every contract schema as a component", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.components.schemas)).toEqual([...SCHEMA_NAMES]);
  });

  it("documents every hosted operation of the action table with its answers, errors and security", () => {
    for (const op of HOSTED_OPERATIONS) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry).toBeDefined();
      for (const status of [...Object.keys(op.answers), "400", "401", "403", "429", "502", "503", "504"]) {
        expect(entry!.responses).toHaveProperty(String(status));
      }
      for (const status of op.errors) expect(entry!.responses).toHaveProperty(String(status));
      expect(entry!.security).toEqual([{ idToken: [] }]);
    }
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

  it("refers only to schemas it defines", () => {
    const missing = refs(doc)
      .map((r) => r.replace("#/components/schemas/", ""))
      .filter((name) => !(name in doc.components.schemas));
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

  it("shows every operation in a real browser, loading nothing from outside the gateway", async () => {
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
    await page.close();
  }, 60_000);
});
