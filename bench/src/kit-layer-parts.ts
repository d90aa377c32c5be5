import { randomUUID } from "node:crypto";
import { accessLineWriter, createLogger, createMetrics } from "@arena/service-kit";
import { pino } from "pino";

/**
 * The service kit's per-request pieces timed alone, in one process (`node dist/kit-layer-parts.js`):
 * what the kit did before (a pino child per request, the access line through pino's redaction,
 * an unbound histogram observation) beside what it does now. Lines go to /dev/null, one write each.
 */
const RUNS = 200_000;

function time(name: string, work: (i: number) => unknown): void {
  for (let i = 0; i < RUNS / 10; i++) work(i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < RUNS; i++) work(i);
  const micros = Number(process.hrtime.bigint() - started) / RUNS / 1000;
  console.log(`| ${name} | ${micros.toFixed(2)} |`);
}

const sink = pino.destination({ dest: "/dev/null", sync: true });
const logger = createLogger({ name: "parts", destination: sink as unknown as NodeJS.WritableStream });
const writeAccessLine = accessLineWriter(logger);
const metrics = createMetrics("parts");
const fields = () => ({ method: "GET", path: "/seasons", status: 200, durationMs: 0.3 });
const LINE = `${JSON.stringify({ level: "info", time: new Date().toISOString(), service: "parts", requestId: randomUUID(), ...fields(), msg: "request completed" })}\n`;

console.log("| piece | µs |\n|---|---|");
time("before: a pino child per request (req.log)", (i) => logger.child({ requestId: `r-${i}` }));
time("before: access line, child + info through redaction", (i) =>
  logger.child({ requestId: `r-${i}` }).info(fields(), "request completed"),
);
time("now: access line, composed onto the logger's stream", (i) =>
  writeAccessLine({ requestId: `r-${i}`, ...fields() }),
);
time("of which: writing the line (one write to /dev/null)", () => sink.write(LINE));
time("before: histogram observe(labels, value)", () =>
  metrics.httpDuration.observe({ method: "GET", route: "/seasons", status: "200" }, 0.0003),
);
const series = metrics.httpDuration.labels({ method: "GET", route: "/seasons", status: "200" });
time("now: the bound series' observe(value)", () => series.observe(0.0003));
time("request id: randomUUID()", () => randomUUID());
