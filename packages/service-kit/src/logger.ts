import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/**
 * Everything that may carry a secret. pino replaces these paths before a line is written, so a
 * handler that logs a request, a body or an error by mistake still never leaks a credential.
 */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-service-token']",
  "headers.authorization",
  "authorization",
  "password",
  "licenseKey",
  "token",
  "accessToken",
  "refreshToken",
  "idToken",
  "*.password",
  "*.PASSWORD",
  "*.licenseKey",
  "*.token",
  "*.accessToken",
  "*.refreshToken",
  "*.idToken",
  "*.IdToken",
  "*.AccessToken",
  "*.RefreshToken",
  "*.REFRESH_TOKEN",
  "*.authorization",
  "*.lease",
  "*.*.password",
  "*.*.PASSWORD",
  "*.*.licenseKey",
  "*.*.REFRESH_TOKEN",
];

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Where lines go; tests pass a stream to read them. Defaults to stdout. */
  destination?: NodeJS.WritableStream;
  /**
   * Property names censored at any depth of a logged object, besides REDACTED_PATHS (pino's paths
   * cannot say "at any depth"); e.g. the credential fields a service's wire schemas mark.
   */
  redactKeys?: readonly string[];
}

const CENSOR = "[redacted]";
/** Deeper than this a logged object is cut, so a cyclic or hostile structure cannot stall a log call. */
const MAX_REDACT_DEPTH = 32;

/** `value` with every property named in `keys` censored, at any depth; the same object when none is. */
export function redactKeysDeep(value: unknown, keys: ReadonlySet<string>, depth = 0): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_REDACT_DEPTH) return CENSOR;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const redacted = redactKeysDeep(item, keys, depth + 1);
      if (redacted !== item) {
        copy ??= [...value];
        copy[i] = redacted;
      }
    });
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  // Only plain objects (parsed JSON bodies, log fields) are walked; errors have their serializer.
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const redacted = keys.has(key) ? CENSOR : redactKeysDeep(item, keys, depth + 1);
    if (redacted !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = redacted;
    }
  }
  return copy ?? value;
}

/** The access-log sibling of each logger createLogger made (see `accessLogger`). */
const accessLoggers = new WeakMap<Logger, Logger>();

export function createLogger({ name, level = "info", destination, redactKeys }: LoggerOptions): Logger {
  const keys = new Set(redactKeys ?? []);
  const plain = {
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  const options = {
    ...plain,
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    formatters: {
      ...plain.formatters,
      ...(keys.size === 0
        ? {}
        : {
            log: (fields: Record<string, unknown>) => redactKeysDeep(fields, keys) as Record<string, unknown>,
          }),
    },
  };
  const logger = destination ? pino(options, destination as pino.DestinationStream) : pino(options);
  // "trace": the kit asks the main logger whether info is on, so a level changed later is followed.
  const access = pino(
    { ...plain, level: "trace" },
    (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym],
  );
  accessLoggers.set(logger, access);
  return logger;
}

/**
 * The logger the kit writes its access lines with: for a logger of `createLogger`, a sibling with
 * the same fields and stream but without redaction (about three quarters of a line's time, see the
 * README), which has nothing to do on a line the kit composes of method, path, status and duration
 * alone (no query string, no header, no body). Only for such lines: nothing it writes is censored.
 * Its level lets everything through; the kit asks the app's logger first. Any other logger is its
 * own access logger.
 */
export function accessLogger(logger: Logger): Logger {
  return accessLoggers.get(logger) ?? logger;
}
