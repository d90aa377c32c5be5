import { createLicenseClient, type LicenseClient } from "@arena/license-client";
import { createLogger } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
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

describe("the matchmaker against the real license service", () => {
  let service: Awaited<ReturnType<typeof startLicenseService>>;
  let license: LicenseClient;
  let licenseId: string;
  let clockOffsetMs = 0;
  let app: ReturnType<typeof createApp>["app"];

  beforeAll(async () => {
    service = await startLicenseService();
    const created = (await service.admin("POST", "/admin/licenses", {
      name: "Studio",
      email: "ops@studio.example",
      edition: "community",
    }))!;
    licenseId = created.id!;
    license = createLicenseClient({
      licenseKey: created.licenseKey!,
      licenseUrl: service.url,
      refreshIntervalMs: 3_600_000,
      gracePeriodMs: GRACE_MS,
      retryDelayMs: 3_600_000,
      requestTimeoutMs: 2_000,
      now: () => Date.now() + clockOffsetMs,
    });
    await license.start();
    app = createApp({
      config: { MAX_BODY_BYTES: 1 << 20, MAX_TICKETS: 1000, MAX_MATCH_PLAYERS: 1000, CLOCK_SKEW_SECONDS: 60 },
      license,
      logger,
    }).app;
  }, 60_000);

  afterAll(async () => {
    license?.stop();
    await service?.close();
  });

  it("serves the basic edition and refuses the advanced one on a community key", async () => {
    expect(license.state()).toMatchObject({ status: "valid", edition: "community" });
    expect((await request(app).post("/matchmaking/basic").send(basicGame)).status).toBe(200);
    const advanced = await request(app).post("/matchmaking/advanced").send(game);
    expect(advanced.status).toBe(403);
    expect(advanced.body.code).toBe("EDITION_REQUIRED");
  });

  it("serves the advanced edition after an upgrade, at the next refresh, without a restart", async () => {
    await service.admin("PATCH", `/admin/licenses/${licenseId}`, { edition: "advanced" });
    await license.refresh();
    const advanced = await request(app).post("/matchmaking/advanced").send(game);
    expect(advanced.status).toBe(200);
    expect(advanced.body.matchSuggestions).toHaveLength(1);
    expect(advanced.body.matchSuggestions[0].server).toBe("eu-1");
  });

  it("keeps serving through an outage shorter than the grace period and stops after it", async () => {
    await service.stop();
    await license.refresh();
    expect(license.state().status).toBe("grace");
    expect((await request(app).post("/matchmaking/advanced").send(game)).status).toBe(200);
    expect((await request(app).get("/readyz")).status).toBe(200);

    clockOffsetMs = GRACE_MS + 1_000;
    const expired = await request(app).post("/matchmaking/basic").send(basicGame);
    expect(expired.status).toBe(503);
    expect(expired.body.code).toBe("LICENSE_UNAVAILABLE");
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.detail).toMatch(/license/);
  });

  it("recovers when the license service is back", async () => {
    clockOffsetMs = 0;
    await service.start();
    await license.refresh();
    expect(license.state()).toMatchObject({ status: "valid", edition: "advanced" });
    expect((await request(app).post("/matchmaking/basic").send(basicGame)).status).toBe(200);
  });

  it("answers 403 and reports not ready once the key is revoked", async () => {
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
