import type { Edition } from "@arena/contracts";

export type LicenseStatus = "pending" | "valid" | "grace" | "expired" | "invalid";

/** What the holder of a license may do right now, and why not when it may not. */
export interface LicenseState {
  status: LicenseStatus;
  /** The edition of the verified lease; null unless the status is `valid` or `grace`. */
  edition: Edition | null;
  /** The license id (`sub` of the lease); null unless a lease is held. */
  licenseId: string | null;
  leaseExpiresAt: Date | null;
  /** When the license service last confirmed the key with a lease that verified. */
  lastValidatedAt: Date | null;
  /** A sentence for logs, `/readyz` and problem details; null when valid. Never contains the key. */
  reason: string | null;
}

/** The verified content of a lease JWT. */
export interface Lease {
  edition: Edition;
  licenseId: string;
  expiresAtMs: number;
}

/**
 * Everything the client has learnt; the status is derived from these and the clock on every read,
 * so a lease that runs out turns into `expired` even if no timer fired.
 */
export interface LicenseFacts {
  /** The last lease that verified; dropped when the key is rejected. */
  lease: Lease | null;
  lastValidatedAtMs: number | null;
  /** Set by a rejection of the key (403); cleared by the next success. */
  rejection: string | null;
  /** The latest failure since the last success or rejection (outage, 5xx, untrusted lease). */
  failure: { reason: string; sinceMs: number } | null;
}

export const INITIAL_FACTS: LicenseFacts = {
  lease: null,
  lastValidatedAtMs: null,
  rejection: null,
  failure: null,
};

/** The instant the last lease stops counting: its own expiry, or the end of the grace period. */
export function leaseUsableUntil(facts: LicenseFacts, gracePeriodMs: number): number | null {
  if (facts.lease === null || facts.lastValidatedAtMs === null) return null;
  return Math.min(facts.lease.expiresAtMs, facts.lastValidatedAtMs + gracePeriodMs);
}

const iso = (ms: number) => new Date(ms).toISOString();

export function deriveState(facts: LicenseFacts, nowMs: number, gracePeriodMs: number): LicenseState {
  const lastValidatedAt = facts.lastValidatedAtMs === null ? null : new Date(facts.lastValidatedAtMs);
  const none = { edition: null, licenseId: null, leaseExpiresAt: null, lastValidatedAt };

  if (facts.rejection !== null) {
    return {
      status: "invalid",
      ...none,
      reason: `License key rejected by the license service: ${facts.rejection}`,
    };
  }

  const { lease, failure } = facts;
  const usableUntil = leaseUsableUntil(facts, gracePeriodMs);
  if (lease === null || usableUntil === null) {
    const reason = failure
      ? `License not confirmed yet: ${failure.reason}`
      : "License not validated yet: waiting for the license service";
    return { status: "pending", ...none, reason };
  }

  const held = { licenseId: lease.licenseId, leaseExpiresAt: new Date(lease.expiresAtMs), lastValidatedAt };
  if (nowMs >= usableUntil) {
    const ended =
      usableUntil === lease.expiresAtMs
        ? `the last lease expired at ${iso(usableUntil)}`
        : `the grace period ended at ${iso(usableUntil)}`;
    const reason = failure
      ? `License could not be confirmed since ${iso(failure.sinceMs)} (${failure.reason}) and ${ended}`
      : `License lease not renewed in time: ${ended}`;
    return { status: "expired", ...held, edition: null, reason };
  }
  if (failure) {
    return {
      status: "grace",
      ...held,
      edition: lease.edition,
      reason:
        `License could not be confirmed since ${iso(failure.sinceMs)} (${failure.reason}); ` +
        `serving the ${lease.edition} edition on the last lease until ${iso(usableUntil)}`,
    };
  }
  return { status: "valid", ...held, edition: lease.edition, reason: null };
}

/** Two states differ for listeners when anything but the validation timestamp changed. */
export function sameState(a: LicenseState, b: LicenseState): boolean {
  return (
    a.status === b.status &&
    a.edition === b.edition &&
    a.licenseId === b.licenseId &&
    a.reason === b.reason &&
    a.leaseExpiresAt?.getTime() === b.leaseExpiresAt?.getTime()
  );
}
