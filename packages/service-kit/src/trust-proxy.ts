import { isIP } from "node:net";
import { ConfigError } from "./config-error.js";

/** What express's "trust proxy" setting accepts, in the forms this kit passes on. */
export type TrustProxy = boolean | number | string[];

/** The schema keyword by which `loadConfig` checks a value as `parseTrustProxy` reads it. */
export const TRUST_PROXY_KEYWORD = "x-trust-proxy";

/**
 * The `TRUST_PROXY` config field, for a service's config schema (`commonConfigProperties` holds
 * it): `loadConfig` lists a value `parseTrustProxy` would refuse with the other problems.
 */
export const trustProxyProperty = {
  type: "string",
  default: "none",
  [TRUST_PROXY_KEYWORD]: true,
  description:
    "Proxies whose X-Forwarded-For names the client: none (default), true (every hop), a hop count, " +
    "or comma-separated addresses, CIDRs and the names loopback, linklocal, uniquelocal",
} as const;

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
  const problem = trustProxyProblem(value);
  if (problem !== undefined) throw new ConfigError([`TRUST_PROXY=${JSON.stringify(value)} ${problem}`]);
  const text = value.trim().toLowerCase();
  if (text === "" || text === "none" || text === "false") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text.split(",").map((e) => e.trim());
}

/** What is wrong with a `TRUST_PROXY` value (after the variable's name), or undefined when nothing is. */
export function trustProxyProblem(value: string): string | undefined {
  const text = value.trim().toLowerCase();
  if (["", "none", "false", "true"].includes(text) || /^\d+$/.test(text)) return undefined;
  const bad = text
    .split(",")
    .map((e) => e.trim())
    .filter((e) => !PROXY_NAMES.has(e) && !isAddressOrCidr(e));
  if (bad.length === 0) return undefined;
  return `has ${bad.map((b) => JSON.stringify(b)).join(", ")}: not an address, a CIDR, loopback, linklocal or uniquelocal`;
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
