import { randomUUID } from "node:crypto";
import type { Edition } from "@arena/contracts";
import { type Clock, systemClock } from "@arena/service-kit";
import { LicenseCheck, type LicenseCheckSettings, type LicenseLogger } from "./license-check.js";
import { factsAfter, nextRefresh, type Outcome, requireEdition, type Settled } from "./license-policy.js";
import {
  deriveState,
  INITIAL_FACTS,
  type LicenseFacts,
  type LicenseState,
  leaseUsableUntil,
  sameState,
} from "./license-state.js";

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

export function createLicenseClient(options: LicenseClientOptions): LicenseClient {
  return new RefreshingLicenseClient(resolveOptions(options));
}

/**
 * The client (its state in private fields, so no log of the object can show the key): runs checks (`LicenseCheck`) now and on a schedule, records what they learnt
 * (`LicenseFacts`), and publishes the state derived from the facts and the clock to its listeners.
 */
class RefreshingLicenseClient implements LicenseClient {
  readonly #config: ResolvedOptions;
  readonly #check: LicenseCheck;
  readonly #now: () => number;
  readonly #logger: LicenseLogger;
  #facts: LicenseFacts = INITIAL_FACTS;
  #published: LicenseState;
  readonly #listeners = new Set<(s: LicenseState) => void>();
  #running = false;
  #started: Promise<LicenseState> | null = null;
  #inFlight: Promise<LicenseState> | null = null;
  #stopController = new AbortController();
  #refreshTimer: NodeJS.Timeout | undefined;
  #expiryTimer: NodeJS.Timeout | undefined;
  #nextAttemptAtMs: number | null = null;
  #consecutiveFailures = 0;
  #stopCount = 0;

  constructor(config: ResolvedOptions) {
    this.#config = config;
    this.#check = new LicenseCheck(config);
    this.#now = config.now;
    this.#logger = config.logger;
    this.#published = this.state();
  }

  start(): Promise<LicenseState> {
    if (this.#started === null) {
      this.#running = true;
      this.#started = this.refresh();
    }
    return this.#started;
  }

  stop(): void {
    this.#running = false;
    this.#started = null;
    clearTimeout(this.#refreshTimer);
    clearTimeout(this.#expiryTimer);
    this.#refreshTimer = undefined;
    this.#expiryTimer = undefined;
    this.#nextAttemptAtMs = null;
    this.#inFlight = null;
    this.#stopCount += 1;
    this.#stopController.abort();
    this.#stopController = new AbortController();
  }

  state(): LicenseState {
    return deriveState(this.#facts, this.#now(), this.#config.gracePeriodMs);
  }

  require(edition?: Edition): Edition {
    const nextAttemptAtMs = this.#nextAttemptAtMs;
    return requireEdition(
      this.state(),
      edition,
      nextAttemptAtMs === null ? null : nextAttemptAtMs - this.#now(),
    );
  }

  refresh(): Promise<LicenseState> {
    if (this.#inFlight !== null) return this.#inFlight;
    const epoch = this.#stopCount;
    this.#inFlight = (async () => {
      let outcome: Outcome;
      try {
        outcome = await this.#check.run(this.#stopController.signal);
      } catch (err) {
        const reason = this.#check.scrub(`unexpected error (${(err as Error).message})`);
        outcome = { kind: "failure", reason, requestId: "" };
      }
      // After a stop() the slot may already hold a newer attempt: leave it.
      if (epoch === this.#stopCount) this.#inFlight = null;
      // Cut short by stop(): nothing was learnt, and a restarted client has its own schedule.
      if (outcome.kind === "aborted") return this.state();
      this.#apply(outcome);
      this.#schedule(outcome);
      return this.#publish();
    })();
    return this.#inFlight;
  }

  onChange(listener: (s: LicenseState) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #apply(outcome: Settled): void {
    this.#facts = factsAfter(this.#facts, outcome, this.#now());
    const fields = { ...this.#check.logFields, requestId: outcome.requestId };
    switch (outcome.kind) {
      case "success":
        this.#logger.debug(
          { ...fields, edition: outcome.lease.edition, licenseId: outcome.lease.licenseId },
          "license validated",
        );
        break;
      case "rejected":
        this.#logger.error({ ...fields, reason: outcome.reason }, "license key rejected");
        break;
      case "failure":
        this.#logger.warn(
          { ...fields, reason: outcome.reason, consecutiveFailures: this.#consecutiveFailures + 1 },
          outcome.untrusted ? "license lease not trusted" : "license validation failed",
        );
        break;
    }
  }

  #publish(): LicenseState {
    const current = this.state();
    if (!sameState(current, this.#published)) {
      this.#published = current;
      const log = this.#check.logFields;
      const fields = {
        ...log,
        status: current.status,
        edition: current.edition,
        licenseId: current.licenseId,
      };
      if (current.status === "valid") this.#logger.info(fields, `license ${current.status}`);
      else this.#logger.warn({ ...fields, reason: current.reason }, `license ${current.status}`);
      for (const listener of this.#listeners) {
        try {
          listener(current);
        } catch (err) {
          this.#logger.error({ ...log, err }, "license state listener threw");
        }
      }
    }
    this.#armExpiryTimer();
    return current;
  }

  /** Wakes up when the last lease stops counting, so listeners hear of it without a read. */
  #armExpiryTimer(): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    const until = leaseUsableUntil(this.#facts, this.#config.gracePeriodMs);
    if (!this.#running || until === null || this.#facts.rejection !== null) return;
    const wait = until - this.#now();
    if (wait <= 0) return;
    this.#expiryTimer = setTimeout(() => this.#publish(), Math.min(wait + 1, MAX_TIMER_MS));
    this.#expiryTimer.unref();
  }

  #schedule(outcome: Settled): void {
    const next = nextRefresh(outcome, this.#consecutiveFailures, this.#config, this.#now(), Math.random);
    this.#consecutiveFailures = next.consecutiveFailures;
    const delay = next.delayMs;
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = undefined;
    this.#nextAttemptAtMs = null;
    if (!this.#running) return;
    this.#nextAttemptAtMs = this.#now() + delay;
    this.#refreshTimer = setTimeout(() => void this.refresh(), Math.min(delay, MAX_TIMER_MS));
    this.#refreshTimer.unref();
  }
}

interface ResolvedOptions extends LicenseCheckSettings {
  refreshIntervalMs: number;
  gracePeriodMs: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
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
