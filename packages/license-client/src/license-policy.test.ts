import type { AppError } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import { factsAfter, nextRefresh, problemOf, requireEdition, retryAfterMs } from "./license-policy.js";
import { INITIAL_FACTS, type LicenseState } from "./license-state.js";

const lease = { edition: "advanced" as const, licenseId: "lic_1", expiresAtMs: 10_000_000 };
const settings = { refreshIntervalMs: 300_000, retryDelayMs: 5_000, maxRetryDelayMs: 30_000 };
const failure = { kind: "failure" as const, reason: "down", requestId: "r" };

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error("did not throw");
}

describe("factsAfter", () => {
  it("keeps a rejection through later outages and clears it on success", () => {
    const rejected = factsAfter(INITIAL_FACTS, { kind: "rejected", reason: "revoked", requestId: "r" }, 1);
    const outage = factsAfter(rejected, failure, 2);
    expect(outage.rejection).toBe("revoked");
    expect(outage.failure).toEqual({ reason: "down", sinceMs: 2 });
    const back = factsAfter(outage, { kind: "success", lease, requestId: "r" }, 3);
    expect(back).toEqual({ lease, lastValidatedAtMs: 3, rejection: null, failure: null });
  });

  it("counts an outage from its first failure and keeps the lease through it", () => {
    const held = factsAfter(INITIAL_FACTS, { kind: "success", lease, requestId: "r" }, 1);
    const first = factsAfter(held, failure, 10);
    const second = factsAfter(first, { ...failure, reason: "still down" }, 20);
    expect(second.lease).toBe(lease);
    expect(second.failure).toEqual({ reason: "still down", sinceMs: 10 });
  });
});

describe("nextRefresh", () => {
  it("backs off exponentially up to maxRetryDelayMs, each delay in the second half of its step", () => {
    const delays = [0, 1, 2, 3, 4, 5].map((before) => nextRefresh(failure, before, settings, 0, () => 0));
    expect(delays.map((d) => d.delayMs)).toEqual([2_500, 5_000, 10_000, 15_000, 15_000, 15_000]);
    expect(delays.map((d) => d.consecutiveFailures)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(nextRefresh(failure, 10, settings, 0, () => 0.999_999).delayMs).toBeCloseTo(30_000, -1);
  });

  it("waits at least what Retry-After asks, but never longer than the refresh interval", () => {
    expect(nextRefresh({ ...failure, retryAfterMs: 60_000 }, 0, settings, 0, () => 0).delayMs).toBe(60_000);
    expect(nextRefresh({ ...failure, retryAfterMs: 10 ** 9 }, 0, settings, 0, () => 0).delayMs).toBe(300_000);
  });

  it("renews a short-lived lease at half its remaining life and resets the failure count", () => {
    const short = { ...lease, expiresAtMs: 100_000 };
    const next = nextRefresh({ kind: "success", lease: short, requestId: "r" }, 7, settings, 0, () => 0.5);
    expect(next).toEqual({ delayMs: 50_000, consecutiveFailures: 0 });
    const long = nextRefresh({ kind: "success", lease, requestId: "r" }, 0, settings, 0, () => 0);
    expect(long.delayMs).toBeCloseTo(270_000);
  });
});

describe("requireEdition", () => {
  const state = (s: Partial<LicenseState>): LicenseState => ({
    status: "valid",
    edition: "community",
    licenseId: "lic_1",
    leaseExpiresAt: null,
    lastValidatedAt: null,
    reason: null,
    ...s,
  });

  it("grants the held edition and every lower one, in grace too", () => {
    expect(requireEdition(state({}))).toBe("community");
    expect(requireEdition(state({ edition: "advanced" }), "community")).toBe("advanced");
    expect(requireEdition(state({ status: "grace", edition: "advanced" }), "advanced")).toBe("advanced");
  });

  it("refuses a higher edition with EDITION_REQUIRED naming both", () => {
    const err = thrown(() => requireEdition(state({}), "advanced"));
    expect(err.code).toBe("EDITION_REQUIRED");
    expect(err.extensions).toEqual({ requiredEdition: "advanced", edition: "community" });
  });

  it("answers a rejected key with LICENSE_INVALID and no usable lease with LICENSE_UNAVAILABLE", () => {
    expect(
      thrown(() => requireEdition(state({ status: "invalid", edition: null, reason: "revoked" }))).code,
    ).toBe("LICENSE_INVALID");
    const unavailable = thrown(() =>
      requireEdition(state({ status: "expired", edition: null }), undefined, 1_500),
    );
    expect(unavailable.code).toBe("LICENSE_UNAVAILABLE");
    expect(unavailable.headers).toEqual({ "Retry-After": "2" });
    expect(thrown(() => requireEdition(state({ status: "pending", edition: null }))).headers).toBeUndefined();
  });
});

describe("answers of the license service", () => {
  it("reads a problem's detail, or its title, and nothing from other bodies", () => {
    expect(problemOf('{"detail":"revoked","code":"LICENSE_INVALID"}')).toEqual({ detail: "revoked" });
    expect(problemOf('{"title":"Forbidden","detail":""}')).toEqual({ detail: "Forbidden" });
    expect(problemOf("<html>403</html>")).toBeNull();
    expect(problemOf('{"ok":true}')).toBeNull();
  });

  it("reads Retry-After as seconds or as a date", () => {
    expect(retryAfterMs("120", 0)).toBe(120_000);
    expect(retryAfterMs(new Date(5_000).toUTCString(), 2_000)).toBe(3_000);
    expect(retryAfterMs("soon", 0)).toBeUndefined();
    expect(retryAfterMs(null, 0)).toBeUndefined();
  });
});
