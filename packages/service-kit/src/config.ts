import type { SchemaValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { ConfigError } from "./config-error.js";
import { TRUST_PROXY_KEYWORD, trustProxyProblem, trustProxyProperty } from "./trust-proxy.js";

export { ConfigError } from "./config-error.js";

type ConfigSchema = JSONSchema & { type: "object"; properties: Record<string, JSONSchema> };

const envAjv = new Ajv2020({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });

// A bad TRUST_PROXY is one more listed problem, in the words parseTrustProxy would throw.
const checkTrustProxy: SchemaValidateFunction = (_schema: unknown, data: unknown) => {
  const problem = typeof data === "string" ? trustProxyProblem(data) : undefined;
  checkTrustProxy.errors =
    problem === undefined ? [] : [{ keyword: TRUST_PROXY_KEYWORD, message: problem, params: {} }];
  return problem === undefined;
};
envAjv.addKeyword({ keyword: TRUST_PROXY_KEYWORD, type: "string", errors: true, validate: checkTrustProxy });

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

/** Where `readConfigOrExit` reports and how it ends the process (a test passes its own). */
export interface ConfigExit {
  stderr: { write(text: string): unknown };
  exit(code: number): never;
}

const processExit: ConfigExit = { stderr: process.stderr, exit: (code) => process.exit(code) };

/**
 * A service's start: the configuration `load` reads, or, when the environment is invalid, one
 * message on stderr (`<name>: Invalid configuration:` and every problem, a line each) and exit
 * code 1, before anything is connected. Other errors are thrown as they are.
 */
export function readConfigOrExit<T>(name: string, load: () => T, io: ConfigExit = processExit): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr.write(`${name}: ${err.message}\n`);
    return io.exit(1);
  }
}

/** `PORT`, for an app's config schema, with the app's own default port. */
export function portConfigProperty(defaultPort: number) {
  return { PORT: { type: "integer", minimum: 0, maximum: 65535, default: defaultPort } } as const;
}

/** `ADMIN_TOKEN`: the operator's bearer token of an app's `/admin` API. */
export const adminTokenConfigProperty = {
  ADMIN_TOKEN: { type: "string", minLength: 16, description: "Bearer token of the /admin API" },
} as const;

/** Settings every service reads, to spread into an app's own config schema. */
export const commonConfigProperties = {
  HOST: { type: "string", default: "0.0.0.0", description: "Interface to listen on" },
  LOG_LEVEL: {
    type: "string",
    enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    default: "info",
  },
  SHUTDOWN_TIMEOUT_MS: { type: "integer", minimum: 0, default: 10000 },
  // 0 by default: `npm start`, tests and a lone container have no load balancer to wait for, and
  // Ctrl-C stays instant; the Kubernetes manifests and docker-compose.yml set it.
  SHUTDOWN_DELAY_MS: {
    type: "integer",
    minimum: 0,
    default: 0,
    description:
      "On SIGTERM, how long /readyz answers 503 while requests are still served, before the listener closes",
  },
  TRUST_PROXY: trustProxyProperty,
} as const;
