import { createLogger, LogCapture } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createApp } from "../src/app.js";
import { fakeLicense } from "./fake-license.js";

const config = {
  MAX_BODY_BYTES: 16 << 20,
  MAX_TICKETS: 200_000,
  MAX_MATCH_PLAYERS: 1000,
  CLOCK_SKEW_SECONDS: 60,
};

describe("start-up warm-up", () => {
  it("keeps /readyz at 503 until synthetic queues went through the pipeline, without counting them", async () => {
    const logs = new LogCapture();
    const logger = createLogger({ name: "matchmaker-test", level: "warn", destination: logs });
    // Every round, but small: the production size (eight 10k queues per round) took up to 86 s
    // beside the other suites in CI; main.ts uses the defaults, and the bench measures them.
    const { app, warmUp } = createApp({
      config,
      license: fakeLicense(),
      logger,
      warmUp: { repeats: 2, tickets: 500 },
    });
    expect(warmUp).toBeDefined();
    const early = await request(app).get("/readyz");
    expect(early.status).toBe(503);
    expect(early.body.checks["warm-up"]).toMatch(/warming up/);
    expect((await request(app).get("/livez")).status).toBe(200);

    await warmUp!.done;
    // Every warm-up request answered 200 (a failed one is logged as a warning).
    expect(logs.text).not.toMatch(/warm-up request failed/);
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks["warm-up"]).toBe("ok");
    const metrics = (await request(app).get("/metrics")).text;
    expect(metrics).toMatch(/^matchmaker_request_tickets_count\{[^}]*\} 0$/m);
  });

  it("is off unless asked for", async () => {
    const { app, warmUp } = createApp({
      config,
      license: fakeLicense(),
      logger: createLogger({ name: "matchmaker-test", level: "silent" }),
    });
    expect(warmUp).toBeUndefined();
    expect((await request(app).get("/readyz")).status).toBe(200);
  });
});
