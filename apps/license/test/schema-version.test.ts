import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { assertSchemaIsCurrent, OutdatedSchemaError, shippedMigrations } from "../src/schema-version.js";
import { createHarness, type Harness } from "./harness.js";

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await createHarness();
  dir = await mkdtemp(join(tmpdir(), "license-migrations-"));
  for (const name of await shippedMigrations()) await mkdir(join(dir, name));
});
afterAll(async () => {
  await h?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the start-up schema check", () => {
  it("accepts a database with every shipped migration applied", async () => {
    await expect(assertSchemaIsCurrent(h.db)).resolves.toBeUndefined();
  });

  it("refuses a database that lacks a migration this build ships, naming it", async () => {
    await mkdir(join(dir, "29991231000000_from_the_future"));
    const check = assertSchemaIsCurrent(h.db, dir);
    await expect(check).rejects.toBeInstanceOf(OutdatedSchemaError);
    await expect(check).rejects.toThrow(/29991231000000_from_the_future.*db:migrate/);
  });

  it("finds the migrations folder next to the code, as the built image does", async () => {
    expect((await shippedMigrations()).length).toBeGreaterThan(0);
  });
});
