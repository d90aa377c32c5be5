import { ConfigError } from "@arena/service-kit";
import { describe, expect, it } from "@jest/globals";
import { loadMatchmakerConfig } from "./config.js";

describe("matchmaker configuration", () => {
  it("needs only a license key, with defaults for everything else", () => {
    const config = loadMatchmakerConfig({ LICENSE_KEY: "lk_abc" });
    expect(config).toMatchObject({
      PORT: 8000,
      LICENSE_URL: "http://127.0.0.1:8082",
      LICENSE_GRACE_SECONDS: 86400,
      MAX_TICKETS: 200000,
      WARM_UP_TICKETS: 10000,
    });
  });

  it("takes a smaller warm-up, or none, and refuses a negative one", () => {
    expect(loadMatchmakerConfig({ LICENSE_KEY: "lk_abc", WARM_UP_TICKETS: "500" }).WARM_UP_TICKETS).toBe(500);
    expect(loadMatchmakerConfig({ LICENSE_KEY: "lk_abc", WARM_UP_TICKETS: "0" }).WARM_UP_TICKETS).toBe(0);
    expect(() => loadMatchmakerConfig({ LICENSE_KEY: "lk_abc", WARM_UP_TICKETS: "-1" })).toThrow(
      /WARM_UP_TICKETS/,
    );
  });

  it("lists every bad or missing variable at once without showing the key", () => {
    let error: unknown;
    try {
      loadMatchmakerConfig({ LICENSE_URL: "ftp://x", MAX_TICKETS: "lots", PORT: "-1" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain("LICENSE_KEY is required but not set");
    expect(message).toContain("LICENSE_URL");
    expect(message).toContain("MAX_TICKETS");
    expect(message).toContain("PORT");
    expect((error as ConfigError).problems).toHaveLength(4);
  });
});
