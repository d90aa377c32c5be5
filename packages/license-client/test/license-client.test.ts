import { PassThrough } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AppError, createLogger } from "@arena/service-kit";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import {
  createLicenseClient,
  type LicenseClient,
  type LicenseClientOptions,
  type LicenseState,
  licenseReadinessCheck,
} from "../src/index.js";
import { type LicenseStub, STUB_LICENSE_ID, startLicenseStub } from "./license-stub.js";

const LICENSE_KEY = "lk_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let clock: number;
/** The timer tests run on the real clock; everything else on `clock`, moved by hand. */
let realTime: boolean;
const now = () => (realTime ? Date.now() : clock);
const advance = (ms: number) => {
  clock += ms;
};

let stub: LicenseStub;
let clients: LicenseClient[];
let logLines: string[];

beforeEach(async () => {
  clock = Date.parse("2026-11-22T12:00:00.000Z");
  realTime = false;
  stub = await startLicenseStub({ licenseKey: LICENSE_KEY, now });
  clients = [];
  logLines = [];
});

afterEach(async () => {
  for (const client of clients) client.stop();
  await stub.close();
});

function client(overrides: Partial<LicenseClientOptions> = {}): LicenseClient {
  const logStream = new PassThrough();
  logStream.on("data", (chunk: Buffer) =>
    logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean)),
  );
  const created = createLicenseClient({
    licenseKey: LICENSE_KEY,
    licenseUrl: stub.url,
    clock: { now: () => new Date(now()) },
    logger: createLogger({ name: "license-client-test", level: "debug", destination: logStream }),
    ...overrides,
  });
  clients.push(created);
  return created;
}

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}

const validations = () => stub.requests.filter((r) => r.path === "/v1/licenses/validate");
const jwksFetches = () => stub.requests.filter((r) => r.path === "/.well-known/jwks.json");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("before the first answer", () => {
  it("is pending and require() answers 503 LICENSE_UNAVAILABLE", () => {
    const license = client();
    expect(license.state()).toMatchObject({ status: "pending", edition: null, licenseId: null });
    const err = thrown(() => license.require());
    expect(err.code).toBe("LICENSE_UNAVAILABLE");
    expect(err.status).toBe(503);
  });

  it("start() resolves pending with the reason when the service is unreachable, and never rejects", async () => {
    await stub.goDown();
    const state = await client().start();
    expect(state.status).toBe("pending");
    expect(state.edition).toBeNull();
    expect(state.reason).toMatch(/License not confirmed yet: the license service could not be reached/);
  });
});

describe("a valid key", () => {
  it("is valid with the edition, license id and expiry of the verified lease", async () => {
    const state = await client().start();
    expect(state).toEqual({
      status: "valid",
      edition: "community",
      licenseId: STUB_LICENSE_ID,
      leaseExpiresAt: new Date(Math.floor((clock + 24 * HOUR) / 1000) * 1000),
      lastValidatedAt: new Date(clock),
      reason: null,
    });
  });

  it("posts the key and sends an x-request-id on the validation and the JWKS fetch", async () => {
    let n = 0;
    await client({ requestId: () => `req-${++n}` }).start();
    expect(validations()).toEqual([
      { path: "/v1/licenses/validate", requestId: "req-1", body: { licenseKey: LICENSE_KEY } },
    ]);
    expect(jwksFetches().map((r) => r.requestId)).toEqual(["req-1"]);
  });

  it("require() returns community, and require('advanced') throws EDITION_REQUIRED 403", async () => {
    const license = client();
    await license.start();
    expect(license.require()).toBe("community");
    expect(license.require("community")).toBe("community");
    const err = thrown(() => license.require("advanced"));
    expect(err.code).toBe("EDITION_REQUIRED");
    expect(err.status).toBe(403);
    expect(err.detail).toMatch(/advanced edition/);
  });

  it("shows an upgrade to advanced at the next refresh, without a restart, and tells listeners", async () => {
    const license = client();
    await license.start();
    const seen: LicenseState[] = [];
    license.onChange((s) => seen.push(s));
    stub.mode = "advanced";
    advance(5 * MINUTE);
    expect((await license.refresh()).edition).toBe("advanced");
    expect(license.require("advanced")).toBe("advanced");
    expect(seen.map((s) => [s.status, s.edition])).toEqual([["valid", "advanced"]]);

    stub.mode = "community";
    advance(5 * MINUTE);
    await license.refresh();
    expect(thrown(() => license.require("advanced")).code).toBe("EDITION_REQUIRED");
  });

  it("does not tell listeners when a refresh changes nothing, and stops telling them after unsubscribe", async () => {
    const license = client();
    const seen: string[] = [];
    const unsubscribe = license.onChange((s) => seen.push(s.status));
    await license.start();
    await license.refresh();
    unsubscribe();
    stub.mode = "revoked";
    await license.refresh();
    expect(seen).toEqual(["valid"]);
  });

  it("fetches the JWKS once and reuses it while it is fresh", async () => {
    const license = client();
    await license.start();
    advance(MINUTE);
    await license.refresh();
    expect(validations()).toHaveLength(2);
    expect(jwksFetches()).toHaveLength(1);
  });
});

describe("a revoked key", () => {
  it("is invalid at once, without grace, with the service's reason", async () => {
    const license = client();
    await license.start();
    stub.mode = "revoked";
    advance(MINUTE);
    const state = await license.refresh();
    expect(state).toMatchObject({ status: "invalid", edition: null, leaseExpiresAt: null });
    expect(state.reason).toBe("License key rejected by the license service: License key is revoked");
    const err = thrown(() => license.require());
    expect(err.code).toBe("LICENSE_INVALID");
    expect(err.status).toBe(403);
    expect(err.detail).toBe(state.reason);
  });

  it("stays invalid through a later outage, and becomes valid again if the service accepts the key", async () => {
    stub.mode = "revoked";
    const license = client();
    expect((await license.start()).status).toBe("invalid");
    await stub.goDown();
    expect((await license.refresh()).status).toBe("invalid");
    await stub.comeBack();
    stub.mode = "community";
    expect((await license.refresh()).status).toBe("valid");
  });

  it("never repeats the key in the reason, even when the service echoes it", async () => {
    stub.mode = "revoked";
    stub.revokedDetail = `License key ${LICENSE_KEY} is revoked`;
    const state = await client().start();
    expect(state.reason).not.toContain(LICENSE_KEY);
    expect(state.reason).toContain("lk_AbCd…");
  });

  it("counts a bare 403 page (a proxy, not the license service) as an outage, not a revocation", async () => {
    const license = client();
    await license.start();
    stub.mode = "proxyForbidden";
    const state = await license.refresh();
    expect(state.status).toBe("grace");
    expect(state.reason).toMatch(/HTTP 403/);
  });
});

describe("an unreachable license service", () => {
  it("keeps the edition through an outage shorter than the grace period, then recovers", async () => {
    const license = client({ gracePeriodMs: 24 * HOUR });
    await license.start();
    await stub.goDown();
    advance(3 * HOUR);
    const state = await license.refresh();
    expect(state.status).toBe("grace");
    expect(state.edition).toBe("community");
    expect(state.reason).toMatch(
      /could not be reached.*serving the community edition on the last lease until/,
    );
    expect(license.require()).toBe("community");

    await stub.comeBack();
    advance(MINUTE);
    expect(await license.refresh()).toMatchObject({ status: "valid", reason: null });
  });

  it("loses the edition once the outage outlasts the grace period", async () => {
    const license = client({ gracePeriodMs: 2 * HOUR });
    await license.start();
    await stub.goDown();
    advance(HOUR);
    expect((await license.refresh()).status).toBe("grace");
    advance(HOUR + 1);
    const state = await license.refresh();
    expect(state).toMatchObject({ status: "expired", edition: null });
    expect(state.reason).toMatch(/the grace period ended at/);
    const err = thrown(() => license.require());
    expect(err.code).toBe("LICENSE_UNAVAILABLE");
    expect(err.status).toBe(503);
  });

  it("turns expired by the clock alone, without another refresh", async () => {
    const license = client({ gracePeriodMs: 2 * HOUR });
    await license.start();
    await stub.goDown();
    advance(MINUTE);
    expect((await license.refresh()).status).toBe("grace");
    advance(2 * HOUR);
    expect(license.state().status).toBe("expired");
  });

  it("ends the grace when the last lease expires before the grace period does", async () => {
    stub.leaseTtlMs = HOUR;
    const license = client({ gracePeriodMs: 24 * HOUR });
    await license.start();
    await stub.goDown();
    advance(30 * MINUTE);
    expect((await license.refresh()).status).toBe("grace");
    advance(31 * MINUTE);
    const state = await license.refresh();
    expect(state.status).toBe("expired");
    expect(state.reason).toMatch(/the last lease expired at/);
  });

  it("counts a 500 answer as an outage, not a rejection", async () => {
    const license = client();
    await license.start();
    stub.mode = "error";
    const state = await license.refresh();
    expect(state.status).toBe("grace");
    expect(state.reason).toMatch(/HTTP 500 \(An unexpected error occurred\)/);
  });

  it("counts a call that times out as an outage", async () => {
    const license = client({
      requestTimeoutMs: 50,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    });
    const state = await license.start();
    expect(state.status).toBe("pending");
    expect(state.reason).toMatch(/did not answer within 50 ms/);
  });

  it("keeps verifying leases with the last good key set while the JWKS endpoint fails", async () => {
    const license = client();
    await license.start();
    stub.jwksFailing = true;
    advance(HOUR);
    expect((await license.refresh()).status).toBe("valid");
    expect(jwksFetches().length).toBeGreaterThan(1);
  });

  it("cannot trust any lease without ever having fetched the key set", async () => {
    stub.jwksFailing = true;
    const state = await client().start();
    expect(state.status).toBe("pending");
    expect(state.reason).toMatch(/signing keys could not be fetched/);
  });
});

describe("an untrusted lease", () => {
  it("is not valid when signed by another key, and is logged as a warning", async () => {
    stub.mode = "forged";
    const state = await client().start();
    expect(state.status).toBe("pending");
    expect(state.edition).toBeNull();
    expect(state.reason).toMatch(/signature does not match/);
    expect(logLines.some((l) => /"level":"warn".*license lease not trusted/.test(l))).toBe(true);
  });

  it("does not upgrade a community license when the advanced lease is forged", async () => {
    const license = client();
    await license.start();
    stub.mode = "forged";
    advance(MINUTE);
    const state = await license.refresh();
    expect(state).toMatchObject({ status: "grace", edition: "community" });
    expect(thrown(() => license.require("advanced")).code).toBe("EDITION_REQUIRED");
  });

  it("is not valid when signed under a kid the service does not publish", async () => {
    stub.mode = "forgedUnknownKid";
    const license = client();
    const state = await license.start();
    expect(state.status).toBe("pending");
    expect(state.reason).toMatch(/signed by a key the license service does not publish/);
  });

  it("refetches the key set for an unknown kid, at most once per cooldown", async () => {
    const license = client();
    await license.start();
    stub.mode = "forgedUnknownKid";
    advance(MINUTE);
    await license.refresh();
    expect(jwksFetches()).toHaveLength(2);
    await license.refresh();
    expect(jwksFetches()).toHaveLength(2);
  });

  it("is not valid when issued for another audience", async () => {
    stub.mode = "wrongAudience";
    const state = await client().start();
    expect(state.status).toBe("pending");
    expect(state.reason).toMatch(/for another audience than arena-matchmaker/);
  });

  it("is not valid when it has already expired by the client's clock", async () => {
    stub.leaseTtlMs = MINUTE;
    const license = client({ clock: { now: () => new Date(clock + HOUR) } });
    const state = await license.start();
    expect(state.status).toBe("pending");
    expect(state.reason).toMatch(/already expired/);
  });
});

describe("readiness", () => {
  it("passes while valid or in grace and fails with the reason otherwise", async () => {
    const license = client({ gracePeriodMs: HOUR });
    const check = licenseReadinessCheck(license);
    expect(check.name).toBe("license");
    expect(() => check.check()).toThrow(/^pending: License not validated yet/);

    await license.start();
    expect(() => check.check()).not.toThrow();

    await stub.goDown();
    await license.refresh();
    expect(() => check.check()).not.toThrow();

    advance(HOUR);
    expect(() => check.check()).toThrow(/^expired: /);

    await stub.comeBack();
    stub.mode = "revoked";
    await license.refresh();
    expect(() => check.check()).toThrow(/^invalid: License key rejected by the license service/);
  });
});

describe("logging", () => {
  it("never writes the license key, only its prefix", async () => {
    stub.revokedDetail = `License key ${LICENSE_KEY} is revoked`;
    const license = client();
    await license.start();
    stub.mode = "revoked";
    await license.refresh();
    await stub.goDown();
    await license.refresh();
    expect(logLines.length).toBeGreaterThan(2);
    for (const line of logLines) expect(line).not.toContain(LICENSE_KEY);
    expect(logLines.some((l) => l.includes('"keyPrefix":"lk_AbCd…"'))).toBe(true);
  });

  it("rejects bad options listing every problem, without the key", () => {
    expect(() =>
      createLicenseClient({
        licenseKey: " ",
        licenseUrl: "ftp://x",
        refreshIntervalMs: 0,
        gracePeriodMs: -1,
      }),
    ).toThrow(
      "Invalid license client options: licenseKey must be a non-empty string; licenseUrl must be an http or " +
        "https URL; refreshIntervalMs must be a positive number of milliseconds; gracePeriodMs must be a " +
        "positive number of milliseconds",
    );
  });
});

/** `list().length` once it has not changed for `quietMs` (or after `capMs`, whatever it is then). */
async function countOnceQuiet(list: () => unknown[], quietMs: number, capMs: number): Promise<number> {
  const start = Date.now();
  let count = list().length;
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() - start < capMs) {
    await sleep(25);
    if (list().length !== count) {
      count = list().length;
      since = Date.now();
    }
  }
  return count;
}

describe("timers (real time)", () => {
  beforeEach(() => {
    realTime = true;
  });

  it("refreshes periodically on its own, and stop() ends it", async () => {
    const license = client({ refreshIntervalMs: 100 });
    stub.mode = "advanced";
    await license.start();
    await sleep(450);
    expect(validations().length).toBeGreaterThanOrEqual(3);
    license.stop();
    // A check already on its way when stop() came may still reach the stub (stop() aborts it, but
    // the request may have left): wait until the stub has been quiet for a refresh interval and a
    // half. A schedule that went on would never go quiet, and would be caught below anyway.
    const count = await countOnceQuiet(validations, 150, 2_000);
    await sleep(350);
    expect(validations().length).toBe(count);
  });

  it("retries sooner, with backoff, after a failure", async () => {
    stub.mode = "error";
    const license = client({ refreshIntervalMs: HOUR, retryDelayMs: 40 });
    await license.start();
    await sleep(400);
    // 40 ms, 80 ms, 160 ms (each jittered down to half at most): at least 3 attempts, far fewer than 400/20.
    const count = validations().length;
    expect(count).toBeGreaterThanOrEqual(3);
    expect(count).toBeLessThanOrEqual(8);
  });

  it("tells listeners when the grace period runs out, without a refresh", async () => {
    const license = client({ gracePeriodMs: 300, refreshIntervalMs: HOUR, retryDelayMs: HOUR });
    expect((await license.start()).status).toBe("valid");
    await stub.goDown();
    expect((await license.refresh()).status).toBe("grace");
    const seen: string[] = [];
    license.onChange((s) => seen.push(s.status));
    await sleep(450);
    expect(seen).toEqual(["expired"]);
  });

  it("renews a lease that expires sooner than the refresh interval at half its remaining life", async () => {
    stub.leaseTtlMs = 2_000;
    const license = client({ refreshIntervalMs: HOUR });
    await license.start();
    await sleep(1_300);
    expect(validations()).toHaveLength(2);
    expect(license.state().status).toBe("valid");
  });

  it("tells callers of require() when the next attempt is due while no lease is held", async () => {
    await stub.goDown();
    const license = client({ retryDelayMs: 4_000 });
    await license.start();
    const err = thrown(() => license.require());
    expect(err.code).toBe("LICENSE_UNAVAILABLE");
    expect(Number(err.headers?.["Retry-After"])).toBeGreaterThanOrEqual(1);
    expect(Number(err.headers?.["Retry-After"])).toBeLessThanOrEqual(4);
  });

  it("stop() aborts a validation in flight without recording a failure, and start() works again", async () => {
    let hold = true;
    const slowFetch: typeof fetch = (input, init) =>
      hold
        ? new Promise((_resolve, reject) => {
            init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
          })
        : fetch(input, init);
    const license = client({ fetch: slowFetch });
    const first = license.start();
    license.stop();
    const stopped = await first;
    expect(stopped.status).toBe("pending");
    expect(stopped.reason).toBe("License not validated yet: waiting for the license service");
    hold = false;
    expect((await license.start()).status).toBe("valid");
  });

  it("start() is idempotent and refresh() joins a validation in flight", async () => {
    const license = client();
    const [a, b, c] = await Promise.all([license.start(), license.start(), license.refresh()]);
    expect(a).toBe(b);
    expect(c.status).toBe("valid");
    expect(validations()).toHaveLength(1);
  });
});

/**
 * The check's own timer, under garbage collections. On Node 20.20 a timeout built from
 * `AbortSignal.any([…, AbortSignal.timeout(ms)])` never fires once a collection runs during the
 * call, so a service that accepted the connection and never answered held a check for minutes.
 * `gc` comes from `--expose-gc` in the test script (or is exposed here when run without it).
 */
describe("a license service that accepts connections and never answers (real time, forced GCs)", () => {
  let collecting: NodeJS.Timeout | undefined;

  beforeEach(() => {
    realTime = true;
    const gc = exposedGc();
    gc();
    collecting = setInterval(gc, 50);
  });

  afterEach(() => {
    clearInterval(collecting);
  });

  /** The promise's value, or `"still waiting"` once `ms` have passed: a hang detector, not a timer. */
  const within = async <T>(promise: Promise<T>, ms: number) => {
    let guard: NodeJS.Timeout | undefined;
    const late = new Promise<"still waiting">((resolve) => {
      guard = setTimeout(() => resolve("still waiting"), ms);
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(guard);
    }
  };

  it("fails the check at its timeout", async () => {
    stub.hanging = true;
    const license = client({ requestTimeoutMs: 300, retryDelayMs: HOUR, refreshIntervalMs: HOUR });
    const state = await within(license.start(), 5_000);
    expect(state).not.toBe("still waiting");
    expect(state).toMatchObject({ status: "pending" });
    expect((state as LicenseState).reason).toMatch(/did not answer within 300 ms/);
    // One attempt and no retry within the hour. Under CI's full load the 300 ms can pass before
    // the stub has even parsed the request's headers, so it may have recorded none.
    expect(validations().length).toBeLessThanOrEqual(1);
  });

  it("fails the check at its timeout when the key-set fetch is the call that hangs", async () => {
    // The timeout covers the whole check; 2 s leaves the validation room on a busy machine.
    const license = client({ requestTimeoutMs: 2_000, retryDelayMs: HOUR, refreshIntervalMs: HOUR });
    const hangOnJwks: typeof fetch = (input, init) => {
      if (String(input).endsWith("/.well-known/jwks.json")) stub.hanging = true;
      return fetch(input, init);
    };
    const slow = client({
      requestTimeoutMs: 2_000,
      retryDelayMs: HOUR,
      refreshIntervalMs: HOUR,
      fetch: hangOnJwks,
    });
    const state = await within(slow.start(), 5_000);
    expect(state).toMatchObject({ status: "pending" });
    expect((state as LicenseState).reason).toMatch(/did not answer within 2000 ms/);
    expect(jwksFetches()).toHaveLength(1);
    stub.hanging = false;
    expect((await license.start()).status).toBe("valid");
  });

  it("retries with backoff and is valid again soon after the service answers again", async () => {
    stub.hanging = true;
    // 2 s per check: with a GC forced every 50 ms and CI's other suites on the same two cores, a
    // healthy check once took longer than 600 ms, so every retry timed out.
    const license = client({
      requestTimeoutMs: 2_000,
      retryDelayMs: 50,
      maxRetryDelayMs: 300,
      refreshIntervalMs: HOUR,
    });
    expect((await within(license.start(), 5_000)) as LicenseState).toMatchObject({ status: "pending" });
    // A few attempts time out, each retried sooner than the hour between refreshes.
    while (validations().length < 3) await sleep(50);
    const valid = new Promise<LicenseState>((resolve) =>
      license.onChange((s) => {
        if (s.status === "valid") resolve(s);
      }),
    );
    stub.hanging = false;
    // Within the hung check's timeout, one backoff (at most 300 ms) and one check; a hung check
    // would never have ended.
    expect(await within(valid, 5_000)).toMatchObject({ status: "valid", edition: "community" });
  });
});

describe("retry backoff", () => {
  it("doubles from retryDelayMs and stops growing at maxRetryDelayMs (30 s by default)", async () => {
    stub.mode = "error";
    const license = client({ retryDelayMs: 5_000 });
    await license.start();
    const retryAfter = () => Number(thrown(() => license.require()).headers?.["Retry-After"]);
    // Equal jitter: each wait is between half and all of its backoff.
    expect(retryAfter()).toBeGreaterThanOrEqual(3);
    expect(retryAfter()).toBeLessThanOrEqual(5);
    for (let i = 0; i < 12; i++) await license.refresh();
    expect(retryAfter()).toBeGreaterThanOrEqual(15);
    expect(retryAfter()).toBeLessThanOrEqual(30);
  });

  it("rejects a ceiling that is not a positive duration", () => {
    expect(() =>
      createLicenseClient({ licenseKey: LICENSE_KEY, licenseUrl: stub.url, maxRetryDelayMs: 0 }),
    ).toThrow("maxRetryDelayMs must be a positive number of milliseconds");
  });
});

function exposedGc(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") return gc;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
