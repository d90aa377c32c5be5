import { deriveSealingKey, open } from "@arena/signing-keys";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { LICENSE_SEALING_SALT } from "../src/signing/signing-key-store.js";
import { bearer, createHarness, type Harness, SIGNING_KEY_SECRET } from "./harness.js";

let h: Harness;
const issuedKeys: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  // Every way a key comes to exist: registration, re-registration, promotion by use, admin creation.
  for (const email of ["one@example.com", "two@example.com"]) {
    issuedKeys.push(await h.registerAndReadKey(email));
    issuedKeys.push(await h.registerAndReadKey(email));
  }
  const created = await h.http
    .post("/admin/licenses")
    .set("Authorization", bearer())
    .send({ name: "Admin made", email: "three@example.com", edition: "advanced" })
    .expect(201);
  issuedKeys.push(created.body.licenseKey);
  for (const licenseKey of issuedKeys) await h.http.post("/v1/licenses/validate").send({ licenseKey });
  await h.http.post("/admin/signing-keys/rotate").set("Authorization", bearer()).expect(201);
});
afterAll(async () => {
  await h?.close();
});

/** Every row of every table in the database, as text. */
async function everyRowAsText(): Promise<string> {
  const tables = await h.db.$queryRaw<Array<{ table_name: string }>>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
  expect(tables.map((t) => t.table_name)).toEqual(
    expect.arrayContaining(["licenses", "license_keys", "signing_keys", "rate_limit_counters"]),
  );
  const dumps: string[] = [];
  for (const { table_name } of tables) {
    const rows = await h.db.$queryRawUnsafe<Array<{ row: string }>>(
      `SELECT row_to_json(t)::text AS row FROM "${table_name.replaceAll('"', '""')}" t`,
    );
    dumps.push(...rows.map((r) => r.row));
  }
  return dumps.join("\n");
}

describe("secrets at rest", () => {
  it("the database never holds a license key in clear", async () => {
    expect(issuedKeys).toHaveLength(5);
    const text = await everyRowAsText();
    expect(text).toContain("lk_"); // display prefixes are there...
    for (const key of issuedKeys) {
      expect(text).not.toContain(key); // ...but no key
      expect(text).not.toContain(key.slice(3)); // not even without its prefix
    }
    expect(text).not.toMatch(/lk_[0-9A-Za-z]{32}/);
  });

  it("the database never holds a private signing key in clear", async () => {
    const text = await everyRowAsText();
    const sealingKey = deriveSealingKey(SIGNING_KEY_SECRET, LICENSE_SEALING_SALT);
    const rows = await h.db.signingKey.findMany();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      const { d } = JSON.parse(open(row.sealedPrivateJwk, sealingKey, row.kid)) as { d: string };
      expect(d.length).toBeGreaterThan(20);
      expect(text).not.toContain(d);
    }
  });

  it("the log never holds a license key or an e-mail address", () => {
    expect(h.logs.lines.length).toBeGreaterThan(0);
    for (const key of issuedKeys) expect(h.logs.text).not.toContain(key.slice(3));
    expect(h.logs.text).not.toMatch(/(one|two|three)@example\.com/);
  });
});
