import { randomUUID } from "node:crypto";
import { type Edition, validateValidateLicenseResponse } from "@arena/contracts";
import { type Clock, type Logger, systemClock } from "@arena/service-kit";
import { createLeaseVerifier, LeaseVerificationError } from "./lease-verifier.js";
import {
  factsAfter,
  nextRefresh,
  type Outcome,
  problemOf,
  requireEdition,
  retryAfterMs,
  type Settled,
} from "./license-policy.js";
import {
  deriveState,
  INITIAL_FACTS,
  type LicenseFacts,
  type LicenseState,
  leaseUsableUntil,
  sameState,
} from "./license-state.js";

/** The log methods the client uses; a pino logger (service-kit `createLogger`) fits. */
export type LicenseLogger = Pick<Logger, "debug" | "info" | "warn" | "error">;

export interface LicenseClientOptions {
  licenseKey: string;
  /** Base URL of the license service, e.g. `http://127.0.0.1:8082`. */
  licenseUrl: string;
  /** Time between validations while all is well (default 5 min), shortened for leases that expire sooner. */
  refreshIntervalMs?: number;
  /** How long the last lease is honoured while the license service cannot be reached (default 24 h). */
  gracePeriodMs?: number;
  /**
   * Time allowed for one check (default 10 s): the validation, the key-set fetch it may need and
   * reading both answers. A check still running then fails as a timeout.
   */
  requestTimeoutMs?: number;
  /** First retry delay after a failure (default 5 s); doubles per failure up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  /**
   * Longest wait between retries after failures (default 30 s, and never more than
   * `refreshIntervalMs`): once the license service is back, the client knows within this.
   */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
  /** The time source of the lease's expiry, the grace period and the timers (default the system clock). */
  clock?: Clock;
  logger?: LicenseLogger;
  /** The `x-request-id` sent with each validation (default a random UUID). */
  requestId?: () => string;
}

export interface LicenseClient {
  /** Runs the first validation and starts periodic refreshes; resolves with the resulting state, never rejects. */
  start(): Promise<LicenseState>;
  /** Stops refreshing and aborts a call in flight; the state stays as it was. */
  stop(): void;
  state(): LicenseState;
  /**
   * Returns the licensed edition, or throws AppError LICENSE_INVALID (403, key rejected),
   * LICENSE_UNAVAILABLE (503, no usable lease) or EDITION_REQUIRED (403, edition too low).
   */
  require(edition?: Edition): Edition;
  /** Validates now (joining a validation already in flight); never rejects. */
  refresh(): Promise<LicenseState>;
  /** Called on every change of status, edition, license, lease expiry or reason; returns an unsubscribe. */
  onChange(listener: (s: LicenseState) => void): () => void;
}

const DEFAULTS = {
  refreshIntervalMs: 5 * 60_000,
  gracePeriodMs: 24 * 60 * 60_000,
  requestTimeoutMs: 10_000,
  retryDelayMs: 5_000,
  maxRetryDelayMs: 30_000,
};
/** setTimeout's largest delay; longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const KEY_PREFIX_LENGTH = 7;
const MAX_DETAIL_LENGTH = 300;

export function createLicenseClient(options: LicenseClientOptions): LicenseClient {
  const config = resolveOptions(options);
  const { licenseKey, gracePeriodMs, now, logger, fetchFn } = config;
  const keyPrefix = `${licenseKey.slice(0, KEY_PREFIX_LENGTH)}…`;
  const base = config.licenseUrl.replace(/\/+$/, "");
  const validateUrl = `${base}/v1/licenses/validate`;
  const jwksUrl = `${base}/.well-known/jwks.json`;
  const log = { keyPrefix, licenseUrl: withoutCredentials(base) };

  /** Problem details and error messages come from outside: make sure the key never rides along. */
  const scrub = (text: string) => truncate(text.split(licenseKey).join(keyPrefix));

  let facts: LicenseFacts = INITIAL_FACTS;
  let published = deriveState(facts, now(), gracePeriodMs);
  const listeners = new Set<(s: LicenseState) => void>();

  let running = false;
  let started: Promise<LicenseState> | null = null;
  let inFlight: Promise<LicenseState> | null = null;
  let stopController = new AbortController();
  let refreshTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let nextAttemptAtMs: number | null = null;
  let consecutiveFailures = 0;
  let stopCount = 0;

  const verifier = createLeaseVerifier({
    now,
    fetchJwks: async (requestId, signal) => {
      const res = await call(
        jwksUrl,
        { method: "GET", headers: { accept: "application/json" } },
        requestId,
        signal,
      );
      if (res.status !== 200) throw new Error(`the JWKS endpoint answered HTTP ${res.status}`);
      return res.json();
    },
  });

  function call(url: string, init: RequestInit, requestId: string, signal: AbortSignal): Promise<Response> {
    return fetchFn(url, { ...init, headers: { ...init.headers, "x-request-id": requestId }, signal });
  }

  /**
   * One check under one deadline. The deadline is a plain timer that aborts a controller this
   * function holds until the check ends: `AbortSignal.any([stop, AbortSignal.timeout(ms)])` holds
   * its sources weakly, and on Node 20 a garbage collection during the call lets the timeout signal
   * go, so a service that accepted the connection and never answered held a check for minutes.
   * The race makes the check end at the deadline even if a `fetch` ignores its signal.
   */
  async function validateOnce(): Promise<Outcome> {
    const requestId = config.requestId();
    const stopSignal = stopController.signal;
    const deadline = new AbortController();
    const onStop = () => deadline.abort(stopSignal.reason);
    stopSignal.addEventListener("abort", onStop, { once: true });
    const timer = setTimeout(() => {
      deadline.abort(new DOMException(`no answer within ${config.requestTimeoutMs} ms`, "TimeoutError"));
    }, config.requestTimeoutMs);
    const ended = new Promise<never>((_resolve, reject) => {
      deadline.signal.addEventListener("abort", () => reject(deadline.signal.reason), { once: true });
    });
    try {
      return await Promise.race([checkOnce(requestId, deadline.signal), ended]);
    } catch (err) {
      if (stopSignal.aborted) return { kind: "aborted" };
      return { kind: "failure", reason: scrub(describeCallError(err, config.requestTimeoutMs)), requestId };
    } finally {
      clearTimeout(timer);
      stopSignal.removeEventListener("abort", onStop);
      // A check that lost the race to the deadline still has its fetch to end: the abort does it.
      deadline.abort();
    }
  }

  async function checkOnce(requestId: string, signal: AbortSignal): Promise<Settled> {
    try {
      const res = await call(
        validateUrl,
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ licenseKey }),
        },
        requestId,
        signal,
      );
      if (res.status !== 200) {
        const problem = await readProblem(res);
        // Only the license service's own verdict revokes; a proxy's bare 403 page counts as an outage.
        if (res.status === 403 && problem !== null) {
          return { kind: "rejected", reason: problem.detail ?? "the key is revoked or unknown", requestId };
        }
        const detail = problem?.detail;
        return {
          kind: "failure",
          reason: `the license service answered HTTP ${res.status}${detail ? ` (${detail})` : ""}`,
          requestId,
          ...optionalRetryAfter(retryAfterMs(res.headers.get("retry-after"), now())),
        };
      }
      const body: unknown = await res.json().catch(() => undefined);
      if (!validateValidateLicenseResponse(body)) {
        return {
          kind: "failure",
          reason: "the license service answered with a body that is not a license validation",
          requestId,
          untrusted: true,
        };
      }
      // The edition is taken from the signed lease only; the plain body could have been altered.
      const lease = await verifier.verify(body.lease, requestId, signal);
      if (lease.edition !== body.edition) {
        logger.warn(
          { ...log, requestId, bodyEdition: body.edition, leaseEdition: lease.edition },
          "license answer names another edition than its lease; using the lease",
        );
      }
      return { kind: "success", lease, requestId };
    } catch (err) {
      // Aborts (deadline, stop) and network errors are described by validateOnce.
      if (err instanceof LeaseVerificationError && !signal.aborted) {
        return { kind: "failure", reason: scrub(err.message), requestId, untrusted: true };
      }
      throw err;
    }
  }

  /** The problem document of an error answer, or null when the body is not one. */
  async function readProblem(res: Response): Promise<{ detail: string | null } | null> {
    const problem = problemOf(await res.text().catch(() => ""));
    return problem === null ? null : { detail: problem.detail === null ? null : scrub(problem.detail) };
  }

  function apply(outcome: Settled): void {
    facts = factsAfter(facts, outcome, now());
    const fields = { ...log, requestId: outcome.requestId };
    switch (outcome.kind) {
      case "success":
        logger.debug(
          { ...fields, edition: outcome.lease.edition, licenseId: outcome.lease.licenseId },
          "license validated",
        );
        break;
      case "rejected":
        logger.error({ ...fields, reason: outcome.reason }, "license key rejected");
        break;
      case "failure":
        logger.warn(
          { ...fields, reason: outcome.reason, consecutiveFailures: consecutiveFailures + 1 },
          outcome.untrusted ? "license lease not trusted" : "license validation failed",
        );
        break;
    }
  }

  function publish(): LicenseState {
    const current = deriveState(facts, now(), gracePeriodMs);
    if (!sameState(current, published)) {
      published = current;
      const fields = {
        ...log,
        status: current.status,
        edition: current.edition,
        licenseId: current.licenseId,
      };
      if (current.status === "valid") logger.info(fields, `license ${current.status}`);
      else logger.warn({ ...fields, reason: current.reason }, `license ${current.status}`);
      for (const listener of listeners) {
        try {
          listener(current);
        } catch (err) {
          logger.error({ ...log, err }, "license state listener threw");
        }
      }
    }
    armExpiryTimer();
    return current;
  }

  /** Wakes up when the last lease stops counting, so listeners hear of it without a read. */
  function armExpiryTimer(): void {
    clearTimeout(expiryTimer);
    expiryTimer = undefined;
    const until = leaseUsableUntil(facts, gracePeriodMs);
    if (!running || until === null || facts.rejection !== null) return;
    const wait = until - now();
    if (wait <= 0) return;
    expiryTimer = setTimeout(publish, Math.min(wait + 1, MAX_TIMER_MS));
    expiryTimer.unref();
  }

  function schedule(outcome: Settled): void {
    const next = nextRefresh(outcome, consecutiveFailures, config, now(), Math.random);
    consecutiveFailures = next.consecutiveFailures;
    const delay = next.delayMs;
    clearTimeout(refreshTimer);
    refreshTimer = undefined;
    nextAttemptAtMs = null;
    if (!running) return;
    nextAttemptAtMs = now() + delay;
    refreshTimer = setTimeout(() => void refresh(), Math.min(delay, MAX_TIMER_MS));
    refreshTimer.unref();
  }

  function refresh(): Promise<LicenseState> {
    if (inFlight !== null) return inFlight;
    const epoch = stopCount;
    inFlight = (async () => {
      let outcome: Outcome;
      try {
        outcome = await validateOnce();
      } catch (err) {
        outcome = {
          kind: "failure",
          reason: scrub(`unexpected error (${(err as Error).message})`),
          requestId: "",
        };
      }
      // After a stop() the slot may already hold a newer attempt: leave it.
      if (epoch === stopCount) inFlight = null;
      // Cut short by stop(): nothing was learnt, and a restarted client has its own schedule.
      if (outcome.kind === "aborted") return state();
      apply(outcome);
      schedule(outcome);
      return publish();
    })();
    return inFlight;
  }

  function state(): LicenseState {
    return deriveState(facts, now(), gracePeriodMs);
  }

  return {
    start() {
      if (started === null) {
        running = true;
        started = refresh();
      }
      return started;
    },

    stop() {
      running = false;
      started = null;
      clearTimeout(refreshTimer);
      clearTimeout(expiryTimer);
      refreshTimer = undefined;
      expiryTimer = undefined;
      nextAttemptAtMs = null;
      inFlight = null;
      stopCount += 1;
      stopController.abort();
      stopController = new AbortController();
    },

    state,

    require(edition) {
      return requireEdition(state(), edition, nextAttemptAtMs === null ? null : nextAttemptAtMs - now());
    },

    refresh,

    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

interface ResolvedOptions {
  licenseKey: string;
  licenseUrl: string;
  refreshIntervalMs: number;
  gracePeriodMs: number;
  requestTimeoutMs: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  fetchFn: typeof fetch;
  /** The clock in milliseconds since the epoch, as the policy and the timers count. */
  now: () => number;
  logger: LicenseLogger;
  requestId: () => string;
}

/** Checks the options once and lists every problem; the key itself never appears in the message. */
function resolveOptions(options: LicenseClientOptions): ResolvedOptions {
  const problems: string[] = [];
  if (typeof options.licenseKey !== "string" || options.licenseKey.trim() === "") {
    problems.push("licenseKey must be a non-empty string");
  }
  let url: URL | null = null;
  try {
    url = new URL(options.licenseUrl);
  } catch {
    problems.push("licenseUrl must be an absolute URL");
  }
  if (url !== null && url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push("licenseUrl must be an http or https URL");
  }
  const durations = {
    refreshIntervalMs: options.refreshIntervalMs ?? DEFAULTS.refreshIntervalMs,
    gracePeriodMs: options.gracePeriodMs ?? DEFAULTS.gracePeriodMs,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
    retryDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
  };
  for (const [name, value] of Object.entries(durations)) {
    if (!Number.isFinite(value) || value <= 0)
      problems.push(`${name} must be a positive number of milliseconds`);
  }
  if (problems.length > 0) throw new Error(`Invalid license client options: ${problems.join("; ")}`);
  return {
    licenseKey: options.licenseKey.trim(),
    licenseUrl: options.licenseUrl,
    ...durations,
    fetchFn: options.fetch ?? globalThis.fetch,
    now: millisecondsOf(options.clock ?? systemClock),
    logger: options.logger ?? silentLogger,
    requestId: options.requestId ?? randomUUID,
  };
}

function millisecondsOf(clock: Clock): () => number {
  return () => clock.now().getTime();
}

const ignore = () => {};
const silentLogger: LicenseLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

/** For logs: a URL may carry basic-auth credentials, which must not be written. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString().replace(/\/+$/, "");
}

function truncate(text: string): string {
  return text.length > MAX_DETAIL_LENGTH ? `${text.slice(0, MAX_DETAIL_LENGTH)}…` : text;
}

function optionalRetryAfter(ms: number | undefined): { retryAfterMs?: number } {
  return ms === undefined ? {} : { retryAfterMs: ms };
}

/** fetch reports a refused connection as "fetch failed" with the reason in `cause`. */
function describeCallError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `the license service did not answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `the license service could not be reached (${cause ?? e?.message ?? String(err)})`;
}
