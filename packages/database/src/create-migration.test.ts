import { describe, expect, it } from "@jest/globals";
import { migrationSlug } from "./create-migration.js";

describe("migrationSlug", () => {
  it("turns a free-form name into a folder-safe lower-case name", () => {
    expect(migrationSlug("Add player ratings!")).toBe("add_player_ratings");
    expect(migrationSlug("  seasons--v2 ")).toBe("seasons_v2");
  });

  it("rejects a name with nothing usable in it", () => {
    expect(() => migrationSlug("!!!")).toThrow("not usable as a migration name");
  });
});
