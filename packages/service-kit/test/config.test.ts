import { describe, expect, it } from "@jest/globals";
import { ConfigError, commonConfigProperties, loadConfig } from "../src/index.js";

const schema = {
  type: "object",
  required: ["PORT", "ADMIN_TOKEN", "DATABASE_URL"],
  properties: {
    ...commonConfigProperties,
    PORT: { type: "integer", minimum: 1, maximum: 65535, default: 8082 },
    ADMIN_TOKEN: { type: "string", minLength: 16 },
    DATABASE_URL: { type: "string", pattern: "^postgres(ql)?://" },
    VERBOSE: { type: "boolean", default: false },
  },
} as const;

describe("loadConfig", () => {
  it("coerces, applies defaults and freezes the result", () => {
    const config = loadConfig(schema, {
      ADMIN_TOKEN: "a".repeat(16),
      DATABASE_URL: "postgresql://localhost/x",
      VERBOSE: "true",
      PORT: "",
    });
    expect(config).toEqual({
      PORT: 8082,
      HOST: "0.0.0.0",
      LOG_LEVEL: "info",
      SHUTDOWN_TIMEOUT_MS: 10000,
      TRUST_PROXY: "none",
      ADMIN_TOKEN: "a".repeat(16),
      DATABASE_URL: "postgresql://localhost/x",
      VERBOSE: true,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("lists every problem at once and hides secret values", () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: "99999", ADMIN_TOKEN: "short", LOG_LEVEL: "loud" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).toContain("DATABASE_URL is required but not set");
    expect(problems.join("\n")).toContain("PORT=99999 must be <= 65535");
    expect(problems.join("\n")).toContain("ADMIN_TOKEN=(hidden)");
    expect(problems.join("\n")).not.toContain("short");
    expect(problems.join("\n")).toContain('LOG_LEVEL="loud"');
  });
});
