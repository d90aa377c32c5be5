import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ADMIN_TOKEN, bearer, createHarness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const admin = {
  create: (body: object) => h.http.post("/admin/licenses").set("Authorization", bearer()).send(body),
  get: (id: string) => h.http.get(`/admin/licenses/${id}`).set("Authorization", bearer()),
  list: (query = "") => h.http.get(`/admin/licenses${query}`).set("Authorization", bearer()),
  patch: (id: string, body: object) =>
    h.http.patch(`/admin/licenses/${id}`).set("Authorization", bearer()).send(body),
  revoke: (id: string) => h.http.delete(`/admin/licenses/${id}`).set("Authorization", bearer()),
};

async function createLicense(email = "owner@example.com", edition = "community") {
  const res = await admin.create({ name: "Owner", email, edition }).expect(201);
  return res.body as { id: string; licenseKey: string; edition: string; keyPrefix: string };
}

describe("every admin route", () => {
  const routes: Array<[string, string, object?]> = [
    ["post", "/admin/licenses", { name: "n", email: "a@example.com", edition: "community" }],
    ["get", "/admin/licenses"],
    ["get", "/admin/licenses/lic_unknown"],
    ["patch", "/admin/licenses/lic_unknown", { edition: "advanced" }],
    ["delete", "/admin/licenses/lic_unknown"],
    ["post", "/admin/signing-keys/rotate"],
  ];
  const credentials: Array<[string, string | undefined]> = [
    ["no Authorization header", undefined],
    ["a wrong token", bearer("wrong-token-but-long-enough")],
    ["the token as a prefix of a longer one", bearer(`${ADMIN_TOKEN}x`)],
    ["the token without the Bearer scheme", ADMIN_TOKEN],
    ["the token in Basic auth", `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString("base64")}`],
  ];

  for (const [method, path, body] of routes) {
    for (const [what, authorization] of credentials) {
      it(`answers ${method.toUpperCase()} ${path} with ${what} with a 401 problem`, async () => {
        let req = (h.http as unknown as Record<string, (p: string) => import("supertest").Test>)[method]!(
          path,
        );
        if (authorization !== undefined) req = req.set("Authorization", authorization);
        const res = await (body ? req.send(body) : req);
        expect(res.status).toBe(401);
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(res.body.code).toBe("UNAUTHENTICATED");
      });
    }
  }

  it("creates nothing when the token is wrong", async () => {
    await h.http
      .post("/admin/licenses")
      .set("Authorization", bearer("wrong-token-but-long-enough"))
      .send({ name: "n", email: "sneaky@example.com", edition: "advanced" })
      .expect(401);
    expect(await h.db.license.count({ where: { emailNormalized: "sneaky@example.com" } })).toBe(0);
  });
});

describe("admin license management", () => {
  it("shows a license without its key", async () => {
    const created = await createLicense("shown@example.com", "advanced");
    const res = await admin.get(created.id).expect(200);
    expect(res.body).toEqual({
      id: created.id,
      name: "Owner",
      email: "shown@example.com",
      edition: "advanced",
      keyPrefix: created.keyPrefix,
      status: "active",
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      revokedAt: null,
    });
  });

  it("upgrades a license to advanced and back to community", async () => {
    const created = await createLicense();
    expect((await admin.patch(created.id, { edition: "advanced" }).expect(200)).body.edition).toBe(
      "advanced",
    );
    expect((await admin.patch(created.id, { edition: "community" }).expect(200)).body.edition).toBe(
      "community",
    );
    const validated = await h.http
      .post("/v1/licenses/validate")
      .send({ licenseKey: created.licenseKey })
      .expect(200);
    expect(validated.body.edition).toBe("community");
  });

  it("revokes a license with 204, again with 204, and shows it as revoked", async () => {
    const created = await createLicense();
    await admin.revoke(created.id).expect(204);
    await admin.revoke(created.id).expect(204);
    const res = await admin.get(created.id).expect(200);
    expect(res.body.status).toBe("revoked");
    expect(res.body.revokedAt).toEqual(expect.any(String));
    await h.http.post("/v1/licenses/validate").send({ licenseKey: created.licenseKey }).expect(403);
  });

  it("refuses to change the edition of a revoked license with 409", async () => {
    const created = await createLicense();
    await admin.revoke(created.id).expect(204);
    const res = await admin.patch(created.id, { edition: "advanced" }).expect(409);
    expect(res.body.code).toBe("CONFLICT");
  });

  it("answers unknown ids with 404 problems", async () => {
    for (const res of [
      await admin.get("lic_doesnotexist"),
      await admin.patch("lic_doesnotexist", { edition: "advanced" }),
      await admin.revoke("lic_doesnotexist"),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
  });

  it("lists every license exactly once across pages, newest first", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await createLicense(`page-${i}@example.com`)).id);
    const total = await h.db.license.count();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { body: { licenses: Array<{ id: string }>; nextCursor: string | null } } = await admin
        .list(`?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
        .expect(200);
      expect(res.body.licenses.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.licenses.map((l) => l.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    for (const id of ids) expect(seen).toContain(id);
    const all = await admin.list().expect(200);
    const times = all.body.licenses.map((l: { createdAt: string }) => Date.parse(l.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(JSON.stringify(all.body)).not.toMatch(/lk_[0-9A-Za-z]{32}/);
  });

  it("answers a bad limit or cursor with a 400 problem naming the parameter", async () => {
    for (const [query, pointer] of [
      ["?limit=0", "/limit"],
      ["?limit=201", "/limit"],
      ["?limit=ten", "/limit"],
      ["?limit=1.5", "/limit"],
      ["?limit=", "/limit"],
      ["?limit=2&limit=3", "/limit"],
      ["?cursor=garbage", "/cursor"],
      ["?cursor=", "/cursor"],
      ["?cursor=a&cursor=b", "/cursor"],
    ] as const) {
      const res = await admin.list(query).expect(400);
      expect(res.body.code).toBe("VALIDATION_FAILED");
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
    }
  });

  it("names a bad limit and a bad cursor in one answer, each with what is wrong", async () => {
    const res = await admin.list("?limit=500&cursor=garbage").expect(400);
    expect(res.body.errors).toEqual([
      { pointer: "/limit", detail: "must be <= 200" },
      { pointer: "/cursor", detail: "is not a cursor from a previous page" },
    ]);
  });

  it("pages 50 licenses when no limit is given and ignores unknown parameters", async () => {
    for (let i = 0; i < 51; i++) await createLicense(`default-page-${i}@example.com`);
    const res = await admin.list("?utm_source=mail").expect(200);
    expect(res.body.licenses).toHaveLength(50);
    expect(res.body.nextCursor).toEqual(expect.any(String));
  });
});
