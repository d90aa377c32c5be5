/**
 * The license client's decisions, as pure functions of what it learnt and the clock: how an answer
 * changes the facts, when to ask again, and what a caller may do now. `license-client.ts` is the
 * I/O around them (HTTP, timers, logs); `license-state.ts` derives the state from the facts.
 */
import { EDITIONS, type Edition } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { Lease, LicenseFacts, LicenseState } from "./license-state.js";

/** What one validation call came to. */
export type Outcome =
  | { kind: "success"; lease: Lease; requestId: string }
  | { kind: "rejected"; reason: string; requestId: string }
  | { kind: "failure"; reason: string; requestId: string; retryAfterMs?: number; untrusted?: boolean }
  | { kind: "aborted" };
export type Settled = Exclude<Outcome, { kind: "aborted" }>;

/** The facts after an outcome settled at `atMs`. */
export function factsAfter(facts: LicenseFacts, outcome: Settled, atMs: number): LicenseFacts {
  switch (outcome.kind) {
    case "success":
      return { lease: outcome.lease, lastValidatedAtMs: atMs, rejection: null, failure: null };
    case "rejected":
      // No grace for a key the service refuses: the lease goes at once.
      return { ...facts, lease: null, rejection: outcome.reason, failure: null };
    case "failure":
      // A rejection stays in force through an outage: the last word of the service was "no".
      return { ...facts, failure: { reason: outcome.reason, sinceMs: facts.failure?.sinceMs ?? atMs } };
  }
}

export interface RefreshSettings {
  refreshIntervalMs: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

/** A lease about to expire is renewed no more often than this (the configured interval still applies). */
export const MIN_REFRESH_DELAY_MS = 1_000;

/**
 * When to validate again after an outcome, and the count of consecutive failures after it.
 * `random` is in [0, 1) (Math.random in the client): refreshes are jittered by ±10 % and retries
 * spread over the second half of an exponential back-off, so many replicas never ask in lockstep.
 */
export function nextRefresh(
  outcome: Settled,
  failuresBefore: number,
  settings: RefreshSettings,
  nowMs: number,
  random: () => number,
): { delayMs: number; consecutiveFailures: number } {
  const interval = settings.refreshIntervalMs;
  const jitter = (ms: number) => ms * (0.9 + random() * 0.2);
  switch (outcome.kind) {
    case "success": {
      // Renew well before a short-lived lease runs out, whatever the configured interval.
      const halfLife = (outcome.lease.expiresAtMs - nowMs) / 2;
      return {
        delayMs: jitter(Math.min(interval, Math.max(MIN_REFRESH_DELAY_MS, halfLife))),
        consecutiveFailures: 0,
      };
    }
    case "rejected":
      return { delayMs: jitter(interval), consecutiveFailures: 0 };
    case "failure": {
      const failures = failuresBefore + 1;
      const ceiling = Math.min(interval, settings.maxRetryDelayMs);
      const backoff = Math.min(ceiling, settings.retryDelayMs * 2 ** Math.min(failures - 1, 30));
      const delay = backoff / 2 + (random() * backoff) / 2;
      return {
        delayMs: Math.max(delay, Math.min(outcome.retryAfterMs ?? 0, interval)),
        consecutiveFailures: failures,
      };
    }
  }
}

/**
 * The edition a caller may use now, or the AppError that says why not: LICENSE_INVALID (403, key
 * rejected), LICENSE_UNAVAILABLE (503, no usable lease; `Retry-After` when a retry is scheduled) or
 * EDITION_REQUIRED (403, the edition is too low). Test fakes use this same rule.
 */
export function requireEdition(state: LicenseState, edition?: Edition, retryInMs?: number | null): Edition {
  switch (state.status) {
    case "valid":
    case "grace": {
      const held = state.edition as Edition;
      if (edition !== undefined && EDITIONS.indexOf(held) < EDITIONS.indexOf(edition)) {
        throw new AppError(
          "EDITION_REQUIRED",
          `This needs the ${edition} edition; the license is for the ${held} edition`,
          { extensions: { requiredEdition: edition, edition: held } },
        );
      }
      return held;
    }
    case "invalid":
      throw new AppError("LICENSE_INVALID", state.reason ?? "License key rejected");
    case "pending":
    case "expired": {
      const wait =
        retryInMs === undefined || retryInMs === null ? null : Math.max(1, Math.ceil(retryInMs / 1000));
      throw new AppError("LICENSE_UNAVAILABLE", state.reason ?? "License could not be confirmed", {
        ...(wait === null ? {} : { headers: { "Retry-After": String(wait) } }),
      });
    }
  }
}

/** The problem document of an error answer, or null when the text is not one. */
export function problemOf(text: string): { detail: string | null } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { detail, title, code } = parsed as { detail?: unknown; title?: unknown; code?: unknown };
  if (typeof detail !== "string" && typeof title !== "string" && typeof code !== "string") return null;
  const sentence =
    typeof detail === "string" && detail !== "" ? detail : typeof title === "string" ? title : null;
  return { detail: sentence };
}

/** `Retry-After` as milliseconds from `nowMs` (seconds or an HTTP date), when it is one. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
