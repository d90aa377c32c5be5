import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import type { Test } from "supertest";
import { bearer, createHarness, type Harness, nextIp } from "./harness.js";

let h: Harness;
/** A license the fuzz never names: its answers must not change. */
let reference: { id: string; licenseKey: string };
/** A license the fuzz may change, and its key. */
let target: { id: string; licenseKey: string };

beforeAll(async () => {
  // Generous limits: the fuzz is about parsing, not about the rate limits it would otherwise hit.
  h = await createHarness({
    env: { REGISTRATION_LIMIT_PER_EMAIL: "1000", REGISTRATION_LIMIT_PER_IP: "1000" },
  });
  const create = (email: string) =>
    h.http
      .post("/admin/licenses")
      .set("Authorization", bearer())
      .send({ name: "Ref", email, edition: "advanced" });
  reference = (await create("reference@example.com")).body;
  target = (await create("target@example.com")).body;
});
afterAll(async () => {
  await h.license.mailQueue.drain();
  await h?.close();
});

type Method = "post" | "patch" | "get" | "delete" | "put";
const call = (method: Method, path: string): Test =>
  (h.http as unknown as Record<Method, (p: string) => Test>)[method](path).set("X-Forwarded-For", nextIp());

/** Text a hostile client would send: any code point (NUL, CR/LF, lone surrogates), or plain ASCII. */
const text = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 40 }));
const email = fc.oneof(
  fc.emailAddress(),
  text,
  text.map((t) => `${t}@example.com`),
);

/** Bodies: near-valid shapes with hostile values, any JSON value, or any bytes. */
const body = fc.oneof(
  fc.record({ name: text, email }, { requiredKeys: [] }),
  fc.record({ name: text, email, edition: fc.oneof(fc.constantFrom("community", "advanced"), text) }),
  fc.record({ licenseKey: fc.oneof(text, fc.constant("TARGET_KEY")) }),
  fc.record({ edition: fc.oneof(fc.constantFrom("community", "advanced"), text) }),
  fc.jsonValue({ maxDepth: 5 }),
  fc.uint8Array({ maxLength: 512 }).map((a) => Buffer.from(a)),
);

/** Path ids: ours, well-formed unknown ones, and anything percent-encoded or not. */
const pathId = fc.oneof(
  fc.constant("TARGET"),
  fc.stringMatching(/^lic_[0-9A-Za-z]{1,30}$/),
  text.map(encodeURIComponent),
  fc.string({ unit: fc.constantFrom("%", "0", "A", "E", "F", "a", "/", ".", "_"), maxLength: 12 }),
);

const route = fc.oneof(
  fc.record({
    method: fc.constant<Method>("post"),
    path: fc.constant("/v1/registrations"),
    admin: fc.boolean(),
  }),
  fc.record({
    method: fc.constant<Method>("post"),
    path: fc.constant("/v1/licenses/validate"),
    admin: fc.boolean(),
  }),
  fc.record({
    method: fc.constant<Method>("post"),
    path: fc.constant("/admin/licenses"),
    admin: fc.constant(true),
  }),
  fc.record({
    method: fc.constantFrom<Method>("get", "patch", "delete", "put", "post"),
    path: pathId.map((id) => `/admin/licenses/${id}`),
    admin: fc.constant(true),
  }),
  fc.record({
    method: fc.constant<Method>("get"),
    path: fc
      .record({ limit: fc.oneof(fc.nat(), text), cursor: text })
      .map(
        (q) =>
          `/admin/licenses?limit=${encodeURIComponent(String(q.limit))}&cursor=${encodeURIComponent(q.cursor)}`,
      ),
    admin: fc.constant(true),
  }),
);

async function referenceAnswers() {
  const license = await h.http.get(`/admin/licenses/${reference.id}`).set("Authorization", bearer());
  const unknownKey = await h.http.post("/v1/licenses/validate").send({ licenseKey: "lk_not-a-real-key" });
  return [
    { status: license.status, body: license.body },
    { status: unknownKey.status, code: unknownKey.body.code, detail: unknownKey.body.detail },
  ];
}

describe("the license service's HTTP routes, fuzzed", () => {
  it("answer every request with a 2xx or a 4xx problem, never a 5xx, and are unchanged afterwards", async () => {
    const before = await referenceAnswers();
    await fc.assert(
      fc.asyncProperty(route, body, fc.boolean(), async (r, b, asJsonText) => {
        let req = call(r.method, r.path.replace("TARGET", target.id));
        const value =
          typeof b === "object" && b !== null && (b as { licenseKey?: unknown }).licenseKey === "TARGET_KEY"
            ? { licenseKey: target.licenseKey }
            : b;
        if (r.admin) req = req.set("Authorization", bearer());
        if (r.method !== "get" && r.method !== "delete") {
          // Bytes go as they are; JSON values as JSON, objects sometimes through superagent's encoder.
          req = Buffer.isBuffer(value)
            ? req
                .set("content-type", "application/json")
                .serialize((x) => x)
                .send(value)
            : asJsonText || typeof value !== "object" || value === null
              ? req.set("content-type", "application/json").send(JSON.stringify(value))
              : req.send(value as object);
        }
        const res = await req;
        if (res.status >= 500) throw new Error(`${r.method} ${r.path} answered ${res.status}: ${res.text}`);
        if (res.status >= 400) {
          expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
          expect(res.body.status).toBe(res.status);
        }
      }),
      { numRuns: 300 },
    );
    expect(await referenceAnswers()).toEqual(before);
    const validated = await h.http.post("/v1/licenses/validate").send({ licenseKey: reference.licenseKey });
    expect(validated.status).toBe(200);
    expect(validated.body.edition).toBe("advanced");
  });
});
