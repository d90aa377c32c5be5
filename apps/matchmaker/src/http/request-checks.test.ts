import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { firstTicketWithSameId } from "./request-checks.js";

describe("firstTicketWithSameId", () => {
  it("points every ticket at the first ticket with its id", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 }), { maxLength: 200 }), (ids) => {
        const first = firstTicketWithSameId(ids.map((ticketId) => ({ ticketId })));
        expect(Array.from(first)).toEqual(ids.map((id) => ids.indexOf(id)));
      }),
    );
  });
});
