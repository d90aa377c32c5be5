import { createLogger, createServiceApp } from "@arena/service-kit";
import { pino } from "pino";
import { CONSTANT_ANSWER } from "./constant-answer.js";

/**
 * The floor of any app built on the service kit: its express pipeline (request id, an access line
 * per request, metrics, body reader and limit, router, problem handler) answering the constant
 * upstream's answer, with no work of its own, on the kit's server (`app.listen`). Access lines are
 * written at info, one write per line as to stdout, to /dev/null. Run as its own process, like the
 * gateway, so the gateway's own cost shows apart.
 */
const sink = pino.destination({ dest: "/dev/null", sync: true });
const logger = createLogger({
  name: "express-floor",
  level: "info",
  destination: sink as unknown as NodeJS.WritableStream,
});
const { app } = createServiceApp({
  name: "express-floor",
  logger,
  routes: (express) => {
    express.get("/seasons", (_req, res) => {
      res.type("application/json").send(CONSTANT_ANSWER);
    });
  },
});
const server = app.listen(Number(process.env.PORT ?? 18093), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
