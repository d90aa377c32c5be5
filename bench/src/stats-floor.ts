import { createLogger, createServiceApp, serve, stopOnSignals } from "@arena/service-kit";
import { requireServiceToken } from "@arena/stats/dist/access/service-auth.js";

/**
 * The HTTP floor the stats benchmark compares stats' routes with: stats' own stack (the service
 * kit's app and server, stats' 64 kB body limit, its service-token check on every route) answering
 * `{ok: true}` with no storage. A POST body is parsed by the kit and ignored, so the floor pays for
 * reading a request like the leaderboard's. Run as its own process, like stats.
 */
const serviceToken = process.env.SERVICE_TOKEN;
if (!serviceToken) throw new Error("stats-floor: set SERVICE_TOKEN (the token the benchmark sends)");
const logger = createLogger({ name: "stats-floor", level: process.env.LOG_LEVEL ?? "warn" });
const service = createServiceApp({
  name: "stats-floor",
  logger,
  bodyLimit: "64kb",
  routes: (app) => {
    app.use(requireServiceToken(serviceToken));
    app.get("/ping", (_req, res) => {
      res.json({ ok: true });
    });
    app.post("/ping", (_req, res) => {
      res.json({ ok: true });
    });
  },
});
const running = await serve({
  app: service.app,
  port: Number(process.env.PORT ?? 18092),
  host: process.env.HOST ?? "127.0.0.1",
  logger,
  lifecycle: service.lifecycle,
});
stopOnSignals(running, logger);
