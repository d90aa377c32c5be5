import type { Edition } from "@arena/contracts";
import { type LicenseClient, type LicenseState, requireEdition } from "@arena/license-client";

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
    // The real client's rule, so the HTTP tests see exactly what production answers.
    require: (edition?: Edition) => requireEdition(state, edition),
  };
}
