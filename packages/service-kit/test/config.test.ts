import { describe, expect, it } from "@jest/globals";
import {
  ConfigError,
  type ConfigExit,
  commonConfigProperties,
  loadConfig,
  parseTrustProxy,
  readConfigOrExit,
} from "../src/index.js";

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

/** The problems of the ConfigError that loading `env` throws. */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("the configuration was accepted");
}

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
      SHUTDOWN_DELAY_MS: 0,
      TRUST_PROXY: "none",
      ADMIN_TOKEN: "a".repeat(16),
      DATABASE_URL: "postgresql://localhost/x",
      VERBOSE: true,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("lists every problem at once and hides secret values", () => {
    const problems = problemsOf({ PORT: "99999", ADMIN_TOKEN: "short", LOG_LEVEL: "loud" });
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).toContain("DATABASE_URL is required but not set");
    expect(problems.join("\n")).toContain("PORT=99999 must be <= 65535");
    expect(problems.join("\n")).toContain("ADMIN_TOKEN=(hidden)");
    expect(problems.join("\n")).not.toContain("short");
    expect(problems.join("\n")).toContain('LOG_LEVEL="loud"');
  });
});

describe("TRUST_PROXY", () => {
  const load = (TRUST_PROXY: string) =>
    loadConfig(schema, { ADMIN_TOKEN: "a".repeat(16), DATABASE_URL: "postgresql://x/y", TRUST_PROXY });

  it("accepts every form express's trust proxy takes, unchanged, for createServiceApp to parse", () => {
    for (const value of [
      "none",
      "false",
      "TRUE",
      "2",
      "loopback, 10.0.0.0/8",
      "fd00::/8,uniquelocal",
      "::1",
    ]) {
      expect(load(value).TRUST_PROXY).toBe(value);
      expect(() => parseTrustProxy(value)).not.toThrow();
    }
  });

  it("lists a bad entry with the other problems, in the words parseTrustProxy throws", () => {
    const problems = problemsOf({
      PORT: "0",
      TRUST_PROXY: "loopback, localhost, 10.0.0.0/33",
      DATABASE_URL: "x",
    });
    expect(problems).toHaveLength(4);
    const trustProxy =
      'TRUST_PROXY="loopback, localhost, 10.0.0.0/33" has "localhost", "10.0.0.0/33": not an address, a CIDR, ' +
      "loopback, linklocal or uniquelocal";
    expect(problems).toContain(trustProxy);
    expect(() => parseTrustProxy("loopback, localhost, 10.0.0.0/33")).toThrow(trustProxy);
    for (const bad of ["10.0.0.1;rm", "-1", "1.5", "loopback,", "10.0.0.0/8/8", "any"]) {
      expect(() => load(bad)).toThrow(/TRUST_PROXY=/);
    }
  });
});

describe("readConfigOrExit", () => {
  /** Records what was written and the exit code; `exit` throws, as the real one never returns. */
  function fakeExit() {
    const io = {
      written: "",
      code: undefined as number | undefined,
      stderr: { write: (text: string) => (io.written += text) },
      exit: (code: number): never => {
        io.code = code;
        throw new Error("exited");
      },
    };
    return io satisfies ConfigExit;
  }

  it("answers the configuration when it is valid", () => {
    const io = fakeExit();
    const config = readConfigOrExit(
      "svc",
      () => loadConfig(schema, { ADMIN_TOKEN: "a".repeat(16), DATABASE_URL: "postgresql://x/y" }),
      io,
    );
    expect(config.PORT).toBe(8082);
    expect(io.written).toBe("");
  });

  it("prints one message naming the service and every problem, then exits 1", () => {
    const io = fakeExit();
    expect(() => readConfigOrExit("svc", () => loadConfig(schema, { PORT: "99999" }), io)).toThrow("exited");
    expect(io.code).toBe(1);
    expect(io.written).toBe(
      "svc: Invalid configuration:\n" +
        "  - ADMIN_TOKEN is required but not set\n" +
        "  - DATABASE_URL is required but not set\n" +
        "  - PORT=99999 must be <= 65535\n",
    );
  });

  it("throws any other error as it is", () => {
    const io = fakeExit();
    const failure = new Error("not a config problem");
    expect(() =>
      readConfigOrExit(
        "svc",
        () => {
          throw failure;
        },
        io,
      ),
    ).toThrow(failure);
    expect(io.code).toBeUndefined();
  });
});
