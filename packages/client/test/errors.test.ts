import { describe, expect, it } from "@jest/globals";
import { ArenaApiError } from "../src/errors.js";

describe("ArenaApiError", () => {
  it("carries everything a problem says", () => {
    const error = new ArenaApiError("putGame", 400, {
      type: "https://arena.dev/problems/validation-failed",
      title: "Validation failed",
      status: 400,
      detail: "The request is not valid",
      code: "VALIDATION_FAILED",
      requestId: "req-1",
      errors: [{ pointer: "/numTeams", detail: "must be >= 1" }],
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: "ArenaApiError",
      operationId: "putGame",
      status: 400,
      code: "VALIDATION_FAILED",
      title: "Validation failed",
      detail: "The request is not valid",
      requestId: "req-1",
      type: "https://arena.dev/problems/validation-failed",
      fields: [{ pointer: "/numTeams", detail: "must be >= 1" }],
    });
    expect(error.message).toBe("putGame: 400 The request is not valid");
  });

  it("still says what it can when the body is no problem (a proxy's page): the status, the header's request id", () => {
    const error = new ArenaApiError("getGame", 502, {}, "from-header");
    expect(error).toMatchObject({
      code: "HTTP_502",
      title: "HTTP 502",
      detail: "HTTP 502",
      requestId: "from-header",
    });
    expect(error.fields).toEqual([]);
  });

  it("keeps only well-formed field errors", () => {
    const error = new ArenaApiError("addPlayers", 400, {
      errors: [{ pointer: "/players/0", detail: "bad" }, { pointer: 3 }, "nonsense", null],
    });
    expect(error.fields).toEqual([{ pointer: "/players/0", detail: "bad" }]);
  });
});
