/** Where the server says what happens; the command line prints JSON lines, a test may pass `silentLogger`. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, warn() {} };

/** One JSON line per event on standard error (standard output carries the figures). */
export const jsonLineLogger: Logger = {
  info: (message, fields) => console.error(JSON.stringify({ level: "info", message, ...fields })),
  warn: (message, fields) => console.error(JSON.stringify({ level: "warn", message, ...fields })),
};
