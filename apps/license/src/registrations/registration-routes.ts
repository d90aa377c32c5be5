import { createHash } from "node:crypto";
import { type RegistrationAccepted, validateRegistrationRequest } from "@arena/contracts";
import { AppError, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { Router } from "express";
import { type LicenseStore, normalizeEmail } from "../licenses/license-store.js";
import { licenseMail } from "../mail/license-mail.js";
import type { MailQueue } from "../mail/mail-queue.js";
import { clientAddressBucket, type RateLimiter } from "./rate-limiter.js";

export interface RegistrationRoutesDeps {
  licenses: LicenseStore;
  mailQueue: MailQueue;
  rateLimiter: RateLimiter;
  limits: { perEmail: number; perIp: number };
  /** LICENSE_URL quoted in the mail. */
  publicUrl: string;
}

/** The answer to every accepted registration, whatever happened, so it reveals nothing. */
const ACCEPTED: RegistrationAccepted = {
  status: "accepted",
  detail: "If the address can receive mail, a license key is on its way to it.",
};

/** A stable, non-reversible name for an address: rate-limit buckets and logs never hold the address. */
export function emailFingerprint(email: string): string {
  return createHash("sha256").update(normalizeEmail(email), "utf8").digest("base64url").slice(0, 22);
}

/** `POST /v1/registrations`: community self-service. The key travels only by mail. */
export function registrationRoutes(deps: RegistrationRoutesDeps): Router {
  const { licenses, mailQueue, rateLimiter, limits, publicUrl } = deps;
  const router = Router();
  router.post("/v1/registrations", async (req, res) => {
    const body = validateOrThrow(validateRegistrationRequest, requireJsonBody(req));
    const address = emailFingerprint(body.email);
    const checks = [
      {
        bucket: `registration:ip:${clientAddressBucket(req.ip ?? "unknown")}`,
        limit: limits.perIp,
        what: "address",
      },
      { bucket: `registration:email:${address}`, limit: limits.perEmail, what: "e-mail address" },
    ];
    for (const { bucket, limit, what } of checks) {
      const decision = await rateLimiter.hit(bucket, limit);
      if (!decision.allowed) {
        req.log.info({ bucket: bucket.split(":")[1] }, "registration rate-limited");
        throw new AppError("RATE_LIMITED", `Too many registrations from this ${what}; try again later`, {
          headers: { "Retry-After": String(decision.retryAfterSeconds) },
          extensions: { retryAfterSeconds: decision.retryAfterSeconds },
        });
      }
    }

    const outcome = await licenses.register(body);
    if (outcome.kind === "revoked") {
      req.log.info(
        { licenseId: outcome.licenseId, email: address },
        "registration for a revoked license ignored",
      );
    } else {
      const { license, licenseKey } = outcome;
      req.log.info({ licenseId: license.id, email: address, outcome: outcome.kind }, "registration accepted");
      mailQueue.enqueue(
        licenseMail({
          to: body.email,
          name: body.name,
          licenseKey,
          edition: license.edition,
          licenseUrl: publicUrl,
          reissued: outcome.kind === "reissued",
        }),
        { licenseId: license.id, kind: outcome.kind, requestId: req.id },
      );
    }
    res.status(202).json(ACCEPTED);
  });
  return router;
}
