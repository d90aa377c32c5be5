import { describe, expect, it } from "@jest/globals";
import { decodeCursor, encodeCursor } from "./list-cursor.js";

describe("license list cursor", () => {
  it("decodes what it encoded", () => {
    const cursor = { createdAt: new Date("2026-11-02T10:00:00.123Z"), id: "lic_abc123" };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it("rejects text that is not a cursor it issued", () => {
    for (const bad of [
      "",
      "not-base64!",
      Buffer.from("{}").toString("base64url"),
      encodeBad(["x", "lic_a"]),
    ]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
    expect(decodeCursor(encodeBad(["2026-11-02T10:00:00Z", "usr_a"]))).toBeUndefined();
  });
});

function encodeBad(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
