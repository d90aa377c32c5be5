import type { Edition } from "@arena/contracts";
import type { LicenseClient, LicenseState } from "@arena/license-client";
import { AppError } from "@arena/service-kit";

/** A license client whose state a test sets directly (the real one is tested against the license app). */
export function fakeLicense(
  initial: Partial<LicenseState> = {},
): LicenseClient & { set(s: Partial<LicenseState>): void } {
  let state: LicenseState = {
    status: "valid",
    edition: "advanced",
    licenseId: "lic_test",
    leaseExpiresAt: new Date(Date.now() + 3_600_000),
    lastValidatedAt: new Date(),
    reason: null,
    ...initial,
  };
  return {
    set(s) {
      state = { ...state, ...s };
    },
    start: async () => state,
    stop: () => {},
    refresh: async () => state,
    state: () => state,
    onChange: () => () => {},
    require(edition?: Edition): Edition {
      if (state.status === "invalid") throw new AppError("LICENSE_INVALID", state.reason ?? "invalid");
      if (state.edition === null) throw new AppError("LICENSE_UNAVAILABLE", state.reason ?? "unavailable");
      if (edition === "advanced" && state.edition !== "advanced") {
        throw new AppError("EDITION_REQUIRED", "needs advanced");
      }
      return state.edition;
    },
  };
}
