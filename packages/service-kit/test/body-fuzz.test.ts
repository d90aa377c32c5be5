import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { compile } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createLogger, createServiceApp, requireJsonBody, validateOrThrow } from "../src/index.js";
import { byteKeepingParser } from "./byte-keeping-parser.js";

const validateGreeting = compile<{ name: string; tags?: string[] }>({
  type: "object",
  required: ["name"],
  properties: { name: { type: "string", minLength: 1 }, tags: { type: "array", items: { type: "string" } } },
  additionalProperties: false,
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** One listening app per parser mode; requests go over real sockets, bytes exactly as generated. */
function startApp(keepRawBody: boolean): Promise<Server> {
  const { app } = createServiceApp({
    name: "fuzz",
    logger: createLogger({ name: "fuzz", level: "silent" }),
    bodyLimit: 64 * 1024,
    ...(keepRawBody ? { bodyParser: byteKeepingParser } : {}),
    routes(a) {
      a.post("/echo", (req, res) => {
        res.json({ body: requireJsonBody(req) });
      });
      a.post("/greetings", (req, res) => {
        const { name } = validateOrThrow(validateGreeting, requireJsonBody(req));
        res.status(201).json({ hello: name });
      });
    },
  });
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/problem+json",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
];
const ENCODINGS = ["identity", "gzip", "deflate", "br", "zstd", "gzip, br", "x-nonsense"] as const;
const compressors: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b),
  deflate: (b) => deflateSync(b),
  br: (b) => brotliCompressSync(b),
};

/** Bodies: any JSON value, any bytes, deep nesting, and JSON text cut short. */
const bodyBytes = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
  fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a)),
  fc
    .record({ depth: fc.integer({ min: 1, max: 20_000 }), open: fc.constantFrom("[", '{"a":') })
    .map(({ depth, open }) => Buffer.from(open.repeat(depth))),
  fc
    .tuple(fc.jsonValue(), fc.nat())
    .map(([v, cut]) => Buffer.from((JSON.stringify(v) ?? "").slice(0, cut % 64))),
  fc
    .record({ name: fc.string({ unit: "binary" }), tags: fc.array(fc.string()) })
    .map((v) => Buffer.from(JSON.stringify(v))),
);

/** How the bytes travel: a Content-Encoding that matches, one that lies, or an unknown one. */
const request = fc.record({
  path: fc.constantFrom("/echo", "/greetings"),
  contentType: fc.constantFrom(...CONTENT_TYPES),
  encoding: fc.constantFrom(...ENCODINGS),
  compressHonestly: fc.boolean(),
  body: bodyBytes,
});

async function send(
  base: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { method: "POST", headers, ...(body ? { body } : {}) });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: await res.text() };
}

/** A problem's fields that do not change from one request to the next. */
function stable(answer: Answer): unknown {
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  delete body.requestId;
  return { status: answer.status, contentType: answer.contentType, body };
}

describe.each([
  ["express.json-style parser", false],
  ["byte-keeping parser of an app", true],
])("the %s, fuzzed", (_name, keepRawBody) => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = await startApp(keepRawBody);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const reference = () =>
    send(
      base,
      "/greetings",
      { "content-type": "application/json" },
      Buffer.from('{"name":"Ada","tags":["x"]}'),
    );
  const referenceProblem = () =>
    send(base, "/greetings", { "content-type": "application/json" }, Buffer.from('{"tags":[1]}'));

  it("answers every body with a 2xx or a 4xx problem, never a 5xx, and is unchanged afterwards", async () => {
    const before = [await reference(), await referenceProblem()];
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const compress = compressors[r.encoding];
        const bytes = r.compressHonestly && compress ? compress(r.body) : r.body;
        const headers: Record<string, string> = { "content-type": r.contentType };
        if (r.encoding !== "identity") headers["content-encoding"] = r.encoding;
        const answer = await send(base, r.path, headers, bytes);
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(answer.contentType).toMatch(/^application\/problem\+json/);
          const problem = JSON.parse(answer.body);
          expect(problem.status).toBe(answer.status);
          expect(typeof problem.code).toBe("string");
        }
      }),
      { numRuns: 250 },
    );
    const after = [await reference(), await referenceProblem()];
    expect(after[0]).toEqual(before[0]);
    expect(after[0]).toEqual({
      status: 201,
      contentType: expect.stringMatching(/^application\/json/),
      body: '{"hello":"Ada"}',
    });
    expect(stable(after[1] as Answer)).toEqual(stable(before[1] as Answer));
  });
});
