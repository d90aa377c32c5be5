import { createLogger } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createApp } from "../src/app.js";
import { fakeLicense } from "./fake-license.js";

const NOW = 1_700_000_000;

function newApp(license = fakeLicense()) {
  return createApp({
    config: { MAX_BODY_BYTES: 4096, MAX_TICKETS: 1000, MAX_MATCH_PLAYERS: 1000, CLOCK_SKEW_SECONDS: 60 },
    license,
    logger: createLogger({ name: "matchmaker-test", level: "silent" }),
    clock: { now: () => new Date(NOW * 1000) },
  }).app;
}

const ticket = (id: string, rating: number) => ({
  ticketId: id,
  joinTimestamp: NOW,
  rating,
  servers: ["eu-1"],
});

/** The value of one sample line of the Prometheus text, by metric name and labels. */
function sample(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("matchmaking metrics on /metrics", () => {
  it("count tickets, matches, unmatched tickets and time per request", async () => {
    const app = newApp();
    const tickets = [
      ticket("a", 1500),
      ticket("b", 1500),
      ticket("c", 1500),
      ticket("d", 1500),
      ticket("e", 1),
    ];
    const res = await request(app)
      .post("/matchmaking/basic")
      .send({ game_mode: { numTeams: 2, numPlayersPerTeam: 2 }, tickets, now: NOW });
    expect(res.status).toBe(200);
    const text = (await request(app).get("/metrics")).text;
    expect(sample(text, "matchmaker_request_tickets_count")).toBe(1);
    expect(sample(text, "matchmaker_request_tickets_sum")).toBe(5);
    expect(sample(text, "matchmaker_matches_returned_total")).toBe(1);
    expect(sample(text, "matchmaker_unmatched_tickets_returned_total")).toBe(1);
    expect(sample(text, "matchmaker_find_matches_duration_seconds_count")).toBe(1);
    expect(sample(text, "matchmaker_request_duration_seconds_count")).toBe(1);
    const inAlgorithm = sample(text, "matchmaker_find_matches_duration_seconds_sum")!;
    expect(inAlgorithm).toBeGreaterThan(0);
    expect(inAlgorithm).toBeLessThanOrEqual(sample(text, "matchmaker_request_duration_seconds_sum")!);
  });

  it("count refusals by reason, the body parser's included", async () => {
    const license = fakeLicense({ edition: "community" });
    const app = newApp(license);
    await request(app).post("/matchmaking/basic").send({ game_mode: {}, tickets: [] });
    await request(app)
      .post("/matchmaking/basic")
      .send({ game_mode: { numTeams: 2, numPlayersPerTeam: 1 }, tickets: [], padding: "x".repeat(5000) });
    await request(app).post("/matchmaking/basic").set("content-type", "application/json").send("{");
    await request(app)
      .post("/matchmaking/advanced")
      .send({ game_mode: { numTeams: 2, numPlayersPerTeam: 1 }, tickets: [] });
    const text = (await request(app).get("/metrics")).text;
    expect(sample(text, "matchmaker_requests_refused_total", 'reason="validation_failed"')).toBe(1);
    expect(sample(text, "matchmaker_requests_refused_total", 'reason="payload_too_large"')).toBe(1);
    expect(sample(text, "matchmaker_requests_refused_total", 'reason="malformed_json"')).toBe(1);
    expect(sample(text, "matchmaker_requests_refused_total", 'reason="edition_required"')).toBe(1);
    expect(sample(text, "matchmaker_request_tickets_count")).toBe(0);
  });

  it("show the license's status and edition as they are when scraped", async () => {
    const license = fakeLicense({ status: "valid", edition: "advanced" });
    const app = newApp(license);
    let text = (await request(app).get("/metrics")).text;
    expect(sample(text, "matchmaker_license_status", 'status="valid"')).toBe(1);
    expect(sample(text, "matchmaker_license_status", 'status="grace"')).toBe(0);
    expect(sample(text, "matchmaker_license_edition", 'edition="advanced"')).toBe(1);
    license.set({ status: "invalid", edition: null, reason: "revoked" });
    text = (await request(app).get("/metrics")).text;
    expect(sample(text, "matchmaker_license_status", 'status="invalid"')).toBe(1);
    expect(sample(text, "matchmaker_license_status", 'status="valid"')).toBe(0);
    expect(sample(text, "matchmaker_license_edition", 'edition="advanced"')).toBe(0);
  });
});
