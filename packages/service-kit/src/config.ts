import { Ajv2020 } from "ajv/dist/2020.js";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";

/** Thrown when the environment does not describe a valid configuration; lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type ConfigSchema = JSONSchema & { type: "object"; properties: Record<string, JSONSchema> };

const envAjv = new Ajv2020({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });

/**
 * Reads the variables a schema names from the environment, coerces and defaults them, and returns
 * a frozen typed object, or throws one ConfigError naming every bad or missing variable at once.
 * Empty strings count as unset, so `FOO=` in a compose file falls back to the default.
 */
export function loadConfig<const S extends ConfigSchema>(
  schema: S,
  env?: NodeJS.ProcessEnv,
): Readonly<FromSchema<S>>;
export function loadConfig(schema: ConfigSchema, env: NodeJS.ProcessEnv = process.env): Readonly<object> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  const validate = envAjv.compile(schema as object);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      if (e.keyword === "required") {
        return `${(e.params as { missingProperty: string }).missingProperty} is required but not set`;
      }
      const name = e.instancePath.replace(/^\//, "");
      const shown = /KEY|TOKEN|SECRET|PASSWORD/.test(name) ? "(hidden)" : JSON.stringify(raw[name]);
      return `${name}=${shown} ${e.message ?? "is invalid"}`;
    });
    throw new ConfigError(problems);
  }
  return Object.freeze(raw);
}

/** Settings every service reads, to spread into an app's own config schema. */
export const commonConfigProperties = {
  HOST: { type: "string", default: "0.0.0.0", description: "Interface to listen on" },
  LOG_LEVEL: {
    type: "string",
    enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    default: "info",
  },
  SHUTDOWN_TIMEOUT_MS: { type: "integer", minimum: 0, default: 10000 },
} as const;
