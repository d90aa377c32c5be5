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
}

export function createLogger({ name, level = "info", destination }: LoggerOptions): Logger {
  const options = {
    name,
    level,
    base: { service: name },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}
