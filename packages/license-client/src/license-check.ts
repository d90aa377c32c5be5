import { validateValidateLicenseResponse } from "@arena/contracts";
import type { Logger } from "@arena/service-kit";
import { createLeaseVerifier, LeaseVerificationError, type LeaseVerifier } from "./lease-verifier.js";
import { type Outcome, problemOf, retryAfterMs, type Settled } from "./license-policy.js";

/** The log methods the client uses; a pino logger (service-kit `createLogger`) fits. */
export type LicenseLogger = Pick<Logger, "debug" | "info" | "warn" | "error">;

/** What one check needs to know. */
export interface LicenseCheckSettings {
  licenseKey: string;
  licenseUrl: string;
  requestTimeoutMs: number;
  fetchFn: typeof fetch;
  /** The clock in milliseconds since the epoch. */
  now: () => number;
  logger: LicenseLogger;
  requestId: () => string;
}

/** The fields of every log line about the key: a prefix of it and the service's address. */
export interface LicenseLogFields {
  keyPrefix: string;
  licenseUrl: string;
}

const KEY_PREFIX_LENGTH = 7;
const MAX_DETAIL_LENGTH = 300;

/**
 * One check of the key with the license service: the validation call and the verification of the
 * lease it returns (against the service's key set), under one deadline, settled as an `Outcome`.
 */
export class LicenseCheck {
  readonly logFields: LicenseLogFields;
  readonly #settings: LicenseCheckSettings;
  readonly #validateUrl: string;
  readonly #verifier: LeaseVerifier;
  readonly #keyPrefix: string;

  constructor(settings: LicenseCheckSettings) {
    this.#settings = settings;
    const { licenseKey } = settings;
    this.#keyPrefix = `${licenseKey.slice(0, KEY_PREFIX_LENGTH)}…`;
    const base = settings.licenseUrl.replace(/\/+$/, "");
    this.#validateUrl = `${base}/v1/licenses/validate`;
    this.logFields = { keyPrefix: this.#keyPrefix, licenseUrl: withoutCredentials(base) };
    const jwksUrl = `${base}/.well-known/jwks.json`;
    this.#verifier = createLeaseVerifier({
      now: settings.now,
      fetchJwks: async (requestId, signal) => {
        const init = { method: "GET", headers: { accept: "application/json" } };
        const res = await this.#call(jwksUrl, init, requestId, signal);
        if (res.status !== 200) throw new Error(`the JWKS endpoint answered HTTP ${res.status}`);
        return res.json();
      },
    });
  }

  /** Problem details and error messages come from outside: make sure the key never rides along. */
  scrub(text: string): string {
    return truncate(text.split(this.#settings.licenseKey).join(this.#keyPrefix));
  }

  /**
   * One check under one deadline; `stopSignal` (the client's stop()) makes it "aborted". The
   * deadline is a plain timer that aborts a controller this function holds until the check ends:
   * `AbortSignal.any([stop, AbortSignal.timeout(ms)])` holds its sources weakly, and on Node 20 a
   * garbage collection during the call lets the timeout signal go, so a service that accepted the
   * connection and never answered held a check for minutes. The race makes the check end at the
   * deadline even if a `fetch` ignores its signal.
   */
  async run(stopSignal: AbortSignal): Promise<Outcome> {
    const { requestTimeoutMs } = this.#settings;
    const requestId = this.#settings.requestId();
    const deadline = new AbortController();
    const onStop = () => deadline.abort(stopSignal.reason);
    stopSignal.addEventListener("abort", onStop, { once: true });
    const timer = setTimeout(() => {
      deadline.abort(new DOMException(`no answer within ${requestTimeoutMs} ms`, "TimeoutError"));
    }, requestTimeoutMs);
    const ended = new Promise<never>((_resolve, reject) => {
      deadline.signal.addEventListener("abort", () => reject(deadline.signal.reason), { once: true });
    });
    try {
      return await Promise.race([this.#validate(requestId, deadline.signal), ended]);
    } catch (err) {
      if (stopSignal.aborted) return { kind: "aborted" };
      return { kind: "failure", reason: this.scrub(describeCallError(err, requestTimeoutMs)), requestId };
    } finally {
      clearTimeout(timer);
      stopSignal.removeEventListener("abort", onStop);
      // A check that lost the race to the deadline still has its fetch to end: the abort does it.
      deadline.abort();
    }
  }

  async #validate(requestId: string, signal: AbortSignal): Promise<Settled> {
    try {
      const res = await this.#call(
        this.#validateUrl,
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ licenseKey: this.#settings.licenseKey }),
        },
        requestId,
        signal,
      );
      if (res.status !== 200) return await this.#refusal(res, requestId);
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
      const lease = await this.#verifier.verify(body.lease, requestId, signal);
      if (lease.edition !== body.edition) {
        this.#settings.logger.warn(
          { ...this.logFields, requestId, bodyEdition: body.edition, leaseEdition: lease.edition },
          "license answer names another edition than its lease; using the lease",
        );
      }
      return { kind: "success", lease, requestId };
    } catch (err) {
      // Aborts (deadline, stop) and network errors are described by run().
      if (err instanceof LeaseVerificationError && !signal.aborted) {
        return { kind: "failure", reason: this.scrub(err.message), requestId, untrusted: true };
      }
      throw err;
    }
  }

  /** What a validation answer other than 200 means. */
  async #refusal(res: Response, requestId: string): Promise<Settled> {
    const problem = await this.#readProblem(res);
    // Only the license service's own verdict revokes; a proxy's bare 403 page counts as an outage.
    if (res.status === 403 && problem !== null) {
      return { kind: "rejected", reason: problem.detail ?? "the key is revoked or unknown", requestId };
    }
    const detail = problem?.detail;
    const retryAfter = retryAfterMs(res.headers.get("retry-after"), this.#settings.now());
    return {
      kind: "failure",
      reason: `the license service answered HTTP ${res.status}${detail ? ` (${detail})` : ""}`,
      requestId,
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    };
  }

  /** The problem document of an error answer, or null when the body is not one. */
  async #readProblem(res: Response): Promise<{ detail: string | null } | null> {
    const problem = problemOf(await res.text().catch(() => ""));
    return problem === null ? null : { detail: problem.detail === null ? null : this.scrub(problem.detail) };
  }

  #call(url: string, init: RequestInit, requestId: string, signal: AbortSignal): Promise<Response> {
    const { fetchFn } = this.#settings;
    return fetchFn(url, { ...init, headers: { ...init.headers, "x-request-id": requestId }, signal });
  }
}

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

/** fetch reports a refused connection as "fetch failed" with the reason in `cause`. */
function describeCallError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `the license service did not answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `the license service could not be reached (${cause ?? e?.message ?? String(err)})`;
}
