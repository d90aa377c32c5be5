import { isIP } from "node:net";
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
  TRUST_PROXY: {
    type: "string",
    default: "none",
    // The characters of addresses, CIDRs, names and hop counts; parseTrustProxy checks the rest.
    pattern: "^[0-9A-Za-z.:/, ]+$",
    description:
      "Proxies whose X-Forwarded-For names the client: none (default), a hop count, or comma-separated " +
      "addresses, CIDRs and the names loopback, linklocal, uniquelocal",
  },
} as const;

/** What express's "trust proxy" setting accepts, in the forms this kit passes on. */
export type TrustProxy = boolean | number | string[];

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * Reads a `TRUST_PROXY` value as express's "trust proxy" understands it:
 * - `none`, `false` or empty: trust no proxy (`req.ip` is the peer's address);
 * - `true`: trust every hop (only behind a proxy that overwrites `X-Forwarded-For`);
 * - a whole number n: trust the n nearest hops;
 * - comma-separated addresses, CIDRs (`10.0.0.0/8`) and the names loopback, linklocal, uniquelocal.
 * Throws naming the entry that is none of these, so a typo fails at start-up instead of trusting
 * nothing (or everything) silently.
 */
export function parseTrustProxy(value: TrustProxy | string): TrustProxy {
  if (typeof value !== "string") return value;
  const text = value.trim().toLowerCase();
  if (text === "" || text === "none" || text === "false") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(",").map((e) => e.trim());
  const bad = entries.filter((e) => !PROXY_NAMES.has(e) && !isAddressOrCidr(e));
  if (bad.length > 0) {
    throw new ConfigError([
      `TRUST_PROXY=${JSON.stringify(value)} has ${bad.map((b) => JSON.stringify(b)).join(", ")}: not an ` +
        "address, a CIDR, loopback, linklocal or uniquelocal",
    ]);
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address = "", bits, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  // proxy-addr also takes a dotted netmask after an IPv4 address.
  if (family === 4 && isIP(bits) === 4) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}
