import { createLicenseClient, type LicenseClient } from "@arena/license-client";
import { createLogger } from "@arena/service-kit";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createApp } from "../src/app.js";
import { startLicenseService } from "./license-service.js";

const logger = createLogger({ name: "matchmaker-test", level: "silent" });
const GRACE_MS = 60_000;
const game = {
  game_mode: { numTeams: 2, numPlayersPerTeam: 1 },
  tickets: [
    { ticketId: "a", joinTimestamp: 100, rating: 1500, servers: { "eu-1": 20 } },
    { ticketId: "b", joinTimestamp: 100, rating: 1500, servers: { "eu-1": 30 } },
  ],
  now: 130,
};
const basicGame = {
  ...game,
  tickets: game.tickets.map((t) => ({ ...t, servers: ["eu-1"] })),
};

/**
 * Each case makes its own license (key, client, matchmaker app) on the one license service, and
 * starts from the service running and the clock at now, so cases pass in any order or alone.
 */
describe("the matchmaker against the real license service", () => {
  let service: Awaited<ReturnType<typeof startLicenseService>>;
  const clients: LicenseClient[] = [];

  beforeAll(async () => {
    service = await startLicenseService();
  }, 60_000);

  beforeEach(async () => {
    await service.start();
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.stop();
  });

  afterAll(async () => {
    await service?.close();
  });

  /** A new license of `edition`, its started client (on a clock the case can move) and an app. */
  async function licensed(edition: "community" | "advanced") {
    const created = (await service.admin("POST", "/admin/licenses", {
      name: "Studio",
      email: "ops@studio.example",
      edition,
    }))!;
    const clock = { offsetMs: 0 };
    const license = createLicenseClient({
      licenseKey: created.licenseKey!,
      licenseUrl: service.url,
      refreshIntervalMs: 3_600_000,
      gracePeriodMs: GRACE_MS,
      retryDelayMs: 3_600_000,
      requestTimeoutMs: 2_000,
      clock: { now: () => new Date(Date.now() + clock.offsetMs) },
    });
    clients.push(license);
    await license.start();
    const app = createApp({
      config: { MAX_BODY_BYTES: 1 << 20, MAX_TICKETS: 1000, MAX_MATCH_PLAYERS: 1000, CLOCK_SKEW_SECONDS: 60 },
      license,
      logger,
    }).app;
    return { licenseId: created.id!, license, app, clock };
  }

  it("serves the basic edition and refuses the advanced one on a community key", async () => {
    const { license, app } = await licensed("community");
    expect(license.state()).toMatchObject({ status: "valid", edition: "community" });
    expect((await request(app).post("/matchmaking/basic").send(basicGame)).status).toBe(200);
    const advanced = await request(app).post("/matchmaking/advanced").send(game);
    expect(advanced.status).toBe(403);
    expect(advanced.body.code).toBe("EDITION_REQUIRED");
  });

  it("serves the advanced edition after an upgrade, at the next refresh, without a restart", async () => {
    const { licenseId, license, app } = await licensed("community");
    await service.admin("PATCH", `/admin/licenses/${licenseId}`, { edition: "advanced" });
    expect((await request(app).post("/matchmaking/advanced").send(game)).status).toBe(403);
    await license.refresh();
    const advanced = await request(app).post("/matchmaking/advanced").send(game);
    expect(advanced.status).toBe(200);
    expect(advanced.body.matchSuggestions).toHaveLength(1);
    expect(advanced.body.matchSuggestions[0].server).toBe("eu-1");
  });

  it("keeps serving through an outage shorter than the grace period and stops after it", async () => {
    const { license, app, clock } = await licensed("advanced");
    await service.stop();
    await license.refresh();
    expect(license.state().status).toBe("grace");
    expect((await request(app).post("/matchmaking/advanced").send(game)).status).toBe(200);
    expect((await request(app).get("/readyz")).status).toBe(200);

    clock.offsetMs = GRACE_MS + 1_000;
    const expired = await request(app).post("/matchmaking/basic").send(basicGame);
    expect(expired.status).toBe(503);
    expect(expired.body.code).toBe("LICENSE_UNAVAILABLE");
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.detail).toMatch(/license/);
  });

  it("recovers when the license service is back after the grace period ran out", async () => {
    const { license, app, clock } = await licensed("advanced");
    await service.stop();
    clock.offsetMs = GRACE_MS + 1_000;
    await license.refresh();
    expect(license.state().status).toBe("expired");
    expect((await request(app).post("/matchmaking/basic").send(basicGame)).status).toBe(503);

    clock.offsetMs = 0;
    await service.start();
    await license.refresh();
    expect(license.state()).toMatchObject({ status: "valid", edition: "advanced" });
    expect((await request(app).post("/matchmaking/basic").send(basicGame)).status).toBe(200);
  });

  it("answers 403 and reports not ready once the key is revoked", async () => {
    const { licenseId, license, app } = await licensed("advanced");
    await service.admin("DELETE", `/admin/licenses/${licenseId}`);
    await license.refresh();
    const res = await request(app).post("/matchmaking/basic").send(basicGame);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("LICENSE_INVALID");
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.checks.license).toMatch(/invalid/);
  });
});
