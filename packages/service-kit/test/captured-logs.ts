import { Writable } from "node:stream";
import { createLogger, type Logger } from "../src/index.js";

/** A kit logger (`createLogger`, named "test") whose JSON lines the test reads back, parsed. */
export function captureLogs(level = "debug"): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ name: "test", level, destination }) };
}
