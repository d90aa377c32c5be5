import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { bearer, createHarness, type Harness, nextIp } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const PROBLEM = /^application\/problem\+json/;
const register = (body: object) =>
  h.http.post("/v1/registrations").set("X-Forwarded-For", nextIp()).send(body);
const createLicense = (body: object) =>
  h.http.post("/admin/licenses").set("Authorization", bearer()).send(body);

describe("NUL and control characters", () => {
  it("answers a NUL in a registration name with a 400 problem naming /name, and stores nothing", async () => {
    const res = await register({ name: "Jane\u0000Doe", email: "nul-name@example.com" });
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(PROBLEM);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(["/name"]);
    expect(await h.db.license.count({ where: { emailNormalized: "nul-name@example.com" } })).toBe(0);
  });

  it("sends no mail for a registration name carrying line breaks or other control characters", async () => {
    for (const [i, name] of [
      "Jane\r\nBcc: victim@example.com",
      "Jane\nDoe",
      "\u001b[2J",
      "a\u2028b",
    ].entries()) {
      const email = `ctl-${i}@example.com`;
      const res = await register({ name, email });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { pointer: "/name", detail: expect.stringMatching(/^must match pattern/) },
      ]);
      expect(await h.db.license.count({ where: { emailNormalized: email } })).toBe(0);
    }
    await h.license.mailQueue.drain();
    expect(h.mail.messages.filter((m) => /ctl-\d@example\.com/.test(m.to.join()))).toEqual([]);
  });

  it("answers a NUL in an e-mail address with a 400 problem naming /email", async () => {
    const res = await register({ name: "Jane", email: "jane\u0000@example.com" });
    expect(res.status).toBe(400);
    expect(new Set(res.body.errors.map((e: { pointer: string }) => e.pointer))).toEqual(new Set(["/email"]));
  });

  it("answers a NUL or a line break in an admin-created license's name with a 400 problem naming /name", async () => {
    for (const name of ["Studio\u0000", "Studio\r\nX"]) {
      const res = await createLicense({ name, email: "admin-nul@example.com", edition: "advanced" });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(["/name"]);
    }
    expect(await h.db.license.count({ where: { emailNormalized: "admin-nul@example.com" } })).toBe(0);
  });

  it("answers a license id in the path that no license can have with a 404 problem, never a 500", async () => {
    for (const id of ["lic_abc%00", "%00", "lic_%0D%0Aabc", `lic_${"a".repeat(5000)}`, "lic_%C3%A9t%C3%A9"]) {
      for (const res of [
        await h.http.get(`/admin/licenses/${id}`).set("Authorization", bearer()),
        await h.http
          .patch(`/admin/licenses/${id}`)
          .set("Authorization", bearer())
          .send({ edition: "advanced" }),
        await h.http.delete(`/admin/licenses/${id}`).set("Authorization", bearer()),
      ]) {
        expect(res.status).toBe(404);
        expect(res.headers["content-type"]).toMatch(PROBLEM);
        expect(res.body.code).toBe("NOT_FOUND");
      }
    }
  });

  it("answers a path that is not valid percent-encoding with a 400 problem", async () => {
    const res = await h.http.get("/admin/licenses/lic_%E0%A4%A").set("Authorization", bearer());
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(PROBLEM);
  });
});

describe("wrong methods on admin paths", () => {
  it("answer 405 with Allow, not 404", async () => {
    const created = await createLicense({
      name: "M",
      email: "methods@example.com",
      edition: "community",
    }).expect(201);
    const cases: Array<[string, string, string]> = [
      ["put", `/admin/licenses/${created.body.id}`, "DELETE, GET, HEAD, PATCH"],
      ["post", `/admin/licenses/${created.body.id}`, "DELETE, GET, HEAD, PATCH"],
      ["put", "/admin/licenses", "GET, HEAD, POST"],
      ["delete", "/admin/licenses", "GET, HEAD, POST"],
      ["get", "/admin/signing-keys/rotate", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await (h.http as unknown as Record<string, (p: string) => import("supertest").Test>)[
        method
      ]!(path).set("Authorization", bearer());
      expect([method, path, res.status]).toEqual([method, path, 405]);
      expect(res.headers.allow).toBe(allow);
      expect(res.headers["content-type"]).toMatch(PROBLEM);
      expect(res.body.code).toBe("METHOD_NOT_ALLOWED");
    }
  });

  it("still ask for the admin token first, so nothing about /admin shows without it", async () => {
    const res = await h.http.put("/admin/licenses");
    expect(res.status).toBe(401);
  });
});

describe("hostile bodies", () => {
  it("answers a body nested thousands of levels deep with a 400 problem", async () => {
    const deep = `{"name":${"[".repeat(5000)}${"]".repeat(5000)},"email":"deep@example.com"}`;
    const res = await h.http
      .post("/v1/registrations")
      .set("X-Forwarded-For", nextIp())
      .set("content-type", "application/json")
      .send(deep);
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(PROBLEM);
  });

  it("answers a corrupt gzip body with a 400 problem and reads a good one", async () => {
    const send = (body: Buffer) =>
      h.http
        .post("/v1/licenses/validate")
        .set("content-type", "application/json")
        .set("content-encoding", "gzip")
        .serialize((b) => b)
        .send(body);
    const corrupt = await send(Buffer.from("not gzip at all"));
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.code).toBe("MALFORMED_JSON");
    const good = await send(gzipSync(JSON.stringify({ licenseKey: "lk_nope" })));
    expect(good.status).toBe(403);
  });
});
