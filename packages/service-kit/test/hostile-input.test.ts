import { randomBytes } from "node:crypto";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { compile } from "@arena/contracts";
import { describe, expect, it } from "@jest/globals";
import express from "express";
import request from "supertest";
import { commonConfigProperties } from "../src/config.js";
import {
  createLogger,
  createServiceApp,
  loadConfig,
  MAX_FIELD_ERRORS,
  nestingExceeds,
  parseTrustProxy,
  requireJsonBody,
  type ServiceAppOptions,
  validateOrThrow,
} from "../src/index.js";
import { byteKeepingParser } from "./byte-keeping-parser.js";

const validateNumbers = compile<number[]>({ type: "array", items: { type: "integer" } });

/** A tiny app whose routes do what real ones do with a body: echo it, validate it. */
function hostileApp(options: Partial<ServiceAppOptions> = {}) {
  return createServiceApp({
    name: "hostile",
    logger: createLogger({ name: "hostile", level: "silent" }),
    bodyLimit: "1mb",
    ...options,
    routes(app) {
      app.post("/echo", (req, res) => {
        res.status(201).json({ body: requireJsonBody(req) });
      });
      app.post("/numbers", (req, res) => {
        res.json({ sum: validateOrThrow(validateNumbers, requireJsonBody(req)).reduce((a, b) => a + b, 0) });
      });
      app.get("/ip", (req, res) => {
        res.json({ ip: req.ip });
      });
      const admin = express.Router();
      admin.get("/items/:id", (req, res) => {
        res.json({ id: req.params.id });
      });
      admin.post("/items", (_req, res) => {
        res.status(201).end();
      });
      app.use("/admin", admin);
    },
  }).app;
}

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const PROBLEM = /^application\/problem\+json/;

describe.each([
  ["express.json-style bodies", false],
  ["an app's byte-keeping parser", true],
])("%s", (_name, keepRawBody) => {
  const app = hostileApp(keepRawBody ? { bodyParser: byteKeepingParser } : {});
  // Bytes as they are: superagent would otherwise JSON-encode a Buffer sent as application/json.
  const json = (path: string) =>
    request(app)
      .post(path)
      .set("content-type", "application/json")
      .serialize((body) => body);

  it("answers a body nested thousands of levels deep with a 400 problem, not a stack overflow", async () => {
    for (const levels of [65, 10_000, 200_000]) {
      const res = await json("/echo").send(nested(levels));
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(PROBLEM);
      expect(res.body.code).toBe("VALIDATION_FAILED");
      expect(res.body.errors).toEqual([
        { pointer: "", detail: "nests arrays and objects more than 64 levels deep" },
      ]);
    }
  });

  it("accepts nesting up to the limit, counting objects and arrays alike", async () => {
    const deep = `${'{"a":['.repeat(32)}1${"]}".repeat(32)}`;
    const res = await json("/echo").send(deep);
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body.body)).toBe(deep);
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ])("reads a %s body, and answers a corrupt one with a 400 problem", async (encoding, compress) => {
    const good = await json("/echo")
      .set("content-encoding", encoding)
      .send(compress(Buffer.from('{"name":"Ada"}')));
    expect(good.status).toBe(201);
    expect(good.body).toEqual({ body: { name: "Ada" } });

    const garbage = Buffer.from("this is not compressed data at all, not even close");
    // Hex text compresses to about half: a half-length prefix is surely cut short.
    const whole = compress(Buffer.from(JSON.stringify({ name: randomBytes(2000).toString("hex") })));
    const truncated = whole.subarray(0, whole.length >> 1);
    for (const body of [garbage, truncated]) {
      const res = await json("/echo").set("content-encoding", encoding).send(body);
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(PROBLEM);
      expect(res.body.code).toBe("MALFORMED_JSON");
      expect(res.body.errors).toEqual([{ pointer: "", detail: "could not be decoded" }]);
      expect(res.body.detail).toMatch(/^Request body could not be decompressed \(check Content-Encoding\): /);
    }
  });

  it("answers an unsupported Content-Encoding with 415", async () => {
    for (const encoding of ["compress", "zstd", "x-garbage"]) {
      const res = await json("/echo").set("content-encoding", encoding).send('{"a":1}');
      expect(res.status).toBe(415);
      expect(res.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
  });

  it("lists at most the first errors of a body with thousands of bad fields, and counts them", async () => {
    const res = await json("/numbers").send(JSON.stringify(Array.from({ length: 5000 }, () => "x")));
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(res.body.errors[0]).toEqual({ pointer: "/0", detail: "must be integer" });
    expect(res.body.errorCount).toBe(5000);
    expect(res.body.detail).toMatch(/^Invalid request: \/0 must be integer; .*; and 4990 more$/);
    expect(res.text.length).toBeLessThan(10_000);
  });

  it("lists every error, without a count, when there are few", async () => {
    const res = await json("/numbers").send('[1, "a", 2, "b"]');
    expect(res.body.errors).toEqual([
      { pointer: "/1", detail: "must be integer" },
      { pointer: "/3", detail: "must be integer" },
    ]);
    expect(res.body).not.toHaveProperty("errorCount");
  });
});

it("lets an app choose its own depth limit, or none", async () => {
  const shallow = hostileApp({ maxJsonDepth: 2 });
  const three = await request(shallow).post("/echo").set("content-type", "application/json").send("[[[]]]");
  expect(three.status).toBe(400);
  expect(three.body.errors[0].detail).toBe("nests arrays and objects more than 2 levels deep");
  const unbounded = hostileApp({ maxJsonDepth: Number.POSITIVE_INFINITY });
  const deep = await request(unbounded)
    .post("/numbers")
    .set("content-type", "application/json")
    .send(nested(500));
  expect(deep.status).toBe(400);
  expect(deep.body.errors[0]).toEqual({ pointer: "/0", detail: "must be integer" });
});

describe("routes inside a mounted router", () => {
  const app = hostileApp();

  it("answer a wrong method with 405 and Allow, not 404", async () => {
    const item = await request(app).delete("/admin/items/7");
    expect(item.status).toBe(405);
    expect(item.headers.allow).toBe("GET, HEAD");
    expect(item.body.code).toBe("METHOD_NOT_ALLOWED");
    const list = await request(app).get("/admin/items");
    expect(list.status).toBe(405);
    expect(list.headers.allow).toBe("POST");
    expect((await request(app).get("/admin/nothing")).status).toBe(404);
  });

  it("answer a path parameter that is not valid percent-encoding with a 400 problem", async () => {
    for (const res of [
      await request(app).get("/admin/items/%E0%A4%A"),
      await request(app).put("/admin/items/%ZZ"),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(PROBLEM);
      expect(res.body.code).toBe("VALIDATION_FAILED");
    }
  });
});

describe("trust proxy", () => {
  it("believes no X-Forwarded-For by default, even from loopback", async () => {
    const res = await request(hostileApp()).get("/ip").set("X-Forwarded-For", "203.0.113.9");
    expect(res.body.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it("believes X-Forwarded-For from the proxies it is told to trust", async () => {
    for (const trustProxy of ["loopback", "127.0.0.1/8, ::1", "1", "uniquelocal,loopback"]) {
      const res = await request(hostileApp({ trustProxy })).get("/ip").set("X-Forwarded-For", "203.0.113.9");
      expect(res.body.ip).toBe("203.0.113.9");
    }
    const untrusted = await request(hostileApp({ trustProxy: "10.0.0.0/8" }))
      .get("/ip")
      .set("X-Forwarded-For", "203.0.113.9");
    expect(untrusted.body.ip).not.toBe("203.0.113.9");
  });

  it("reads TRUST_PROXY as express's trust proxy setting, default none", () => {
    const schema = { type: "object", properties: commonConfigProperties } as const;
    expect(loadConfig(schema, {}).TRUST_PROXY).toBe("none");
    expect(parseTrustProxy("none")).toBe(false);
    expect(parseTrustProxy(" FALSE ")).toBe(false);
    expect(parseTrustProxy("")).toBe(false);
    expect(parseTrustProxy("true")).toBe(true);
    expect(parseTrustProxy("2")).toBe(2);
    expect(parseTrustProxy("loopback, 10.0.0.0/8,fd00::/8, 192.168.0.0/255.255.0.0, 2001:db8::1")).toEqual([
      "loopback",
      "10.0.0.0/8",
      "fd00::/8",
      "192.168.0.0/255.255.0.0",
      "2001:db8::1",
    ]);
    expect(() => parseTrustProxy("loopback, localhost, 10.0.0.0/33")).toThrow(
      /TRUST_PROXY="loopback, localhost, 10.0.0.0\/33" has "localhost", "10.0.0.0\/33": not an address/,
    );
    expect(() => {
      loadConfig(schema, { TRUST_PROXY: "10.0.0.1;rm" });
    }).toThrow(/TRUST_PROXY/);
  });
});

it("reads a body with a UTF-8 byte order mark, as express.json did", async () => {
  const res = await request(hostileApp())
    .post("/echo")
    .set("content-type", "application/json; charset=utf-8")
    .serialize((b) => b)
    .send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë"}')]));
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ body: { name: "Zoë" } });
});

it("refuses a depth limit it cannot check safely", () => {
  for (const maxJsonDepth of [0, 1.5, 1_001, Number.NaN]) {
    expect(() => hostileApp({ maxJsonDepth })).toThrow(/maxJsonDepth must be an integer from 1 to 1000/);
  }
});

it("measures depth as arrays and objects nested, scalars and empty containers included", () => {
  expect(nestingExceeds(1, 1)).toBe(false);
  expect(nestingExceeds([], 1)).toBe(false);
  expect(nestingExceeds([[]], 1)).toBe(true);
  expect(nestingExceeds({ a: [1, { b: "[[[[" }] }, 3)).toBe(false);
  expect(nestingExceeds({ a: [1, { b: [] }] }, 3)).toBe(true);
  expect(nestingExceeds(JSON.parse(nested(100_000)), 1_000)).toBe(true);
  expect(nestingExceeds(JSON.parse(nested(100_000)), Number.POSITIVE_INFINITY)).toBe(false);
});
