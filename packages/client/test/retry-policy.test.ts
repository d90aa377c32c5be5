import { describe, expect, it } from "@jest/globals";
import { OPERATIONS } from "../src/generated/operations.js";
import { isRepeatable, REPEATABLE } from "../src/http/repeatable.js";
import { backoffDelay, DEFAULT_RETRY, retryAfterMs, retryDelay } from "../src/http/retry-policy.js";

const options = { ...DEFAULT_RETRY, maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

describe("backoff with full jitter", () => {
  it("is uniform below a ceiling that doubles per attempt up to maxDelayMs", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, options, () => 0.999_999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
  });
});

describe("Retry-After", () => {
  it("reads seconds and HTTP dates, and ignores what it cannot read", () => {
    expect(retryAfterMs("2")).toBe(2_000);
    expect(retryAfterMs(" 0 ")).toBe(0);
    const now = Date.parse("2026-11-27T00:00:00Z");
    expect(retryAfterMs("Fri, 27 Nov 2026 00:00:03 GMT", now)).toBe(3_000);
    expect(retryAfterMs("Fri, 27 Nov 2026 00:00:00 GMT", now + 5_000)).toBe(0);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});

describe("retryDelay", () => {
  const half = () => 0.5;
  it("retries 429 and 503 for every operation after Retry-After, or backoff without one", () => {
    for (const repeatable of [true, false]) {
      expect(retryDelay({ status: 429, retryAfter: "1" }, 1, repeatable, options, half)).toBe(1_000);
      expect(retryDelay({ status: 503, retryAfter: "2" }, 1, repeatable, options, half)).toBe(2_000);
      expect(retryDelay({ status: 503 }, 2, repeatable, options, half)).toBe(100);
    }
  });
  it("gives up on a Retry-After longer than maxRetryAfterMs", () => {
    expect(retryDelay({ status: 429, retryAfter: "3600" }, 1, true, options, half)).toBeUndefined();
  });
  it("retries 502, 504 and no answer only for operations safe to repeat", () => {
    for (const outcome of [{ status: 502 }, { status: 504 }, { network: true as const }]) {
      expect(retryDelay(outcome, 1, true, options, half)).toBe(50);
      expect(retryDelay(outcome, 1, false, options, half)).toBeUndefined();
    }
  });
  it("never retries other statuses, nor past maxAttempts", () => {
    for (const status of [400, 401, 403, 404, 409, 413, 500]) {
      expect(retryDelay({ status }, 1, true, options, half)).toBeUndefined();
    }
    expect(retryDelay({ status: 429, retryAfter: "1" }, 5, true, options, half)).toBeUndefined();
  });
});

describe("the table of operations safe to repeat", () => {
  it("decides every generated operation, with a reason for each repeatable one", () => {
    expect(Object.keys(REPEATABLE).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const reason of Object.values(REPEATABLE)) {
      expect(reason === false || reason.length > 5).toBe(true);
    }
  });
  it("repeats every read, and the completions and confirmations the issue names", () => {
    for (const [id, op] of Object.entries(OPERATIONS)) {
      if (op.method === "GET") expect(isRepeatable(id as keyof typeof OPERATIONS)).toBe(true);
    }
    for (const id of ["completeMatch", "confirmMatch", "failMatch", "acknowledgeMatch"] as const) {
      expect(isRepeatable(id)).toBe(true);
    }
    for (const id of ["addPlayers", "getMatches", "startSeason", "resetSeason"] as const) {
      expect(isRepeatable(id)).toBe(false);
    }
  });
});
