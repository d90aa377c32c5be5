import type { ReadinessCheck } from "@arena/service-kit";
import type { LicenseClient } from "./license-client.js";

/**
 * A `/readyz` check that passes while the license allows serving (`valid`, or `grace` during an
 * outage of the license service) and fails with the reason when it is pending, expired or invalid.
 */
export function licenseReadinessCheck(
  client: Pick<LicenseClient, "state">,
  name = "license",
): ReadinessCheck {
  return {
    name,
    check() {
      const { status, reason } = client.state();
      if (status === "valid" || status === "grace") return;
      throw new Error(`${status}: ${reason ?? "no usable license"}`);
    },
  };
}
