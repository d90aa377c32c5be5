import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { decodeHistoryCursor, encodeHistoryCursor } from "./history-cursor.js";

describe("history cursor", () => {
  it("round-trips every position (fast-check)", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(0), noInvalidDate: true }), fc.uuid(), (completedAt, matchId) => {
        expect(decodeHistoryCursor(encodeHistoryCursor({ completedAt, matchId }))).toEqual({
          completedAt,
          matchId,
        });
      }),
    );
  });

  it("answers undefined, never throws, for text it did not issue (fast-check)", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const decoded = decodeHistoryCursor(text);
        if (decoded !== undefined) expect(decoded.matchId.length).toBeGreaterThan(0);
      }),
    );
    expect(
      decodeHistoryCursor(Buffer.from('["2026-01-01T00:00:00Z", 5]').toString("base64url")),
    ).toBeUndefined();
  });
});
