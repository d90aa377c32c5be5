import { type ValidateLicenseResponse, validateValidateLicenseRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import type { SigningKeys } from "@arena/signing-keys";
import { Router } from "express";
import type { Clock } from "../clock.js";
import { signLease } from "../signing/lease.js";
import type { LicenseStore } from "./license-store.js";

export interface ValidationRoutesDeps {
  licenses: LicenseStore;
  signingKeys: SigningKeys;
  clock: Clock;
  leaseTtlSeconds: number;
}

/** `POST /v1/licenses/validate`: a key in, a signed lease out, or one 403 for every kind of bad key. */
export function validationRoutes({
  licenses,
  signingKeys,
  clock,
  leaseTtlSeconds,
}: ValidationRoutesDeps): Router {
  const router = Router();
  router.post("/v1/licenses/validate", async (req, res) => {
    const { licenseKey } = validateOrThrow(validateValidateLicenseRequest, requireJsonBody(req));
    const license = await licenses.validateKey(licenseKey);
    if (!license) {
      throw new AppError("LICENSE_INVALID", "The license key is unknown, revoked or malformed");
    }
    const { lease, expiresAt } = await signLease(signingKeys, license, clock.now(), leaseTtlSeconds);
    const body: ValidateLicenseResponse = {
      edition: license.edition,
      expiresAt: expiresAt.toISOString(),
      lease,
    };
    res.set("Cache-Control", "no-store").json(body);
  });
  return router;
}
