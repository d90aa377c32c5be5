import { createHash } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { checksumMatches, migrationChecksum } from "./migrations-directory.js";

describe("migration checksums", () => {
  it("are the hex SHA-256 of the script, as Prisma records them", () => {
    const script = 'CREATE TABLE "a" ("id" INTEGER);\n';
    expect(migrationChecksum(script)).toBe(createHash("sha256").update(script).digest("hex"));
  });

  it("match a script whose only change is its line endings, and nothing else", () => {
    const recorded = migrationChecksum("SELECT 1;\nSELECT 2;\n");
    expect(checksumMatches("SELECT 1;\r\nSELECT 2;\r\n", recorded)).toBe(true);
    expect(checksumMatches("SELECT 1;\nSELECT 3;\n", recorded)).toBe(false);
  });

  it("match a script whose listed earlier text was the one applied, and only that text", () => {
    const applied = migrationChecksum("-- a comment naming something\nSELECT 1;\n");
    const corrected = "-- the corrected comment\nSELECT 1;\n";
    expect(checksumMatches(corrected, applied)).toBe(false);
    expect(checksumMatches(corrected, applied, [applied])).toBe(true);
    expect(checksumMatches(corrected, migrationChecksum("SELECT 2;\n"), [applied])).toBe(false);
  });
});
