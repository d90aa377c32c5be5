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

/** What the kit logs of each request it answers (the access line's fields). */
export interface AccessLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

export type AccessLineWriter = (line: AccessLine) => void;

/** The access-line writer of each logger createLogger made (see `accessLineWriter`). */
const accessWriters = new WeakMap<Logger, AccessLineWriter>();

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
  const stream = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]!;
  // The line pino writes for `logger.info(line, "request completed")`, field for field and in its
  // order, composed directly: pino's redaction and serializer loop were ~5 of the line's ~6 µs, and
  // the line holds nothing to censor (no query string, header or body). Strings go through
  // JSON.stringify, as pino escapes them; the kit asks the logger whether info is on first.
  const head = `","service":${JSON.stringify(name)},"name":${JSON.stringify(name)},"requestId":`;
  const lines = new AccessLines(stream);
  accessWriters.set(logger, (line) => {
    lines.add(
      `{"level":"info","time":"${new Date().toISOString()}${head}${JSON.stringify(line.requestId)},"method":${JSON.stringify(line.method)},"path":${JSON.stringify(line.path)},"status":${line.status},"durationMs":${line.durationMs},"msg":"request completed"}\n`,
    );
  });
  return logger;
}

/** Above this many characters waiting, access lines are written at once rather than at the end of the turn. */
const ACCESS_LINES_MAX_WAITING = 16 * 1024;
/** Every logger's access lines not yet written, flushed if the process exits before their turn ends. */
const unwritten = new Set<AccessLines>();
process.once("exit", () => {
  for (const lines of unwritten) lines.flush();
});

/**
 * The access lines of one turn of the event loop, written to the logger's stream together when the
 * turn ends (`setImmediate`): under load one turn answers many requests, and one `write` system
 * call for all their lines costs what one line's did (the call was a sixth of the service kit's
 * per-request time). A line waits at most until the end of the turn that finished its request, so
 * the log is as current as before; nginx's `access_log ... buffer= flush=` is the same idea with a
 * timer. Lines still waiting when the process exits are written then; a process killed outright
 * loses at most its current turn's lines. Other log lines are written at once, so an access line
 * may follow a line logged after its request ended in the same turn.
 */
class AccessLines {
  private waiting = "";

  constructor(private readonly stream: pino.DestinationStream) {}

  add(line: string): void {
    if (this.waiting === "") {
      unwritten.add(this);
      setImmediate(() => this.flush());
    }
    this.waiting += line;
    if (this.waiting.length >= ACCESS_LINES_MAX_WAITING) this.flush();
  }

  flush(): void {
    if (this.waiting === "") return;
    const text = this.waiting;
    this.waiting = "";
    unwritten.delete(this);
    this.stream.write(text);
  }
}

/**
 * How the kit writes a request's access line: for a logger of `createLogger`, the line composed
 * directly onto its stream (the same JSON pino would write, without its redaction pass, which has
 * nothing to censor in these five fields); any other logger gets `info(line, "request completed")`.
 */
export function accessLineWriter(logger: Logger): AccessLineWriter {
  return accessWriters.get(logger) ?? ((line) => logger.info(line, "request completed"));
}
