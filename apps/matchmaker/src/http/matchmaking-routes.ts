import type { LicenseClient } from "@arena/license-client";
import { asAppError, requireJsonBody } from "@arena/service-kit";
import type { Express, NextFunction, Request, Response } from "express";
import { rawBodyOf } from "../answer/raw-json-body.js";
import type { MatchmakingMetrics } from "./matchmaking-metrics.js";
import { type MatchmakingPipeline, secondsSince } from "./matchmaking-pipeline.js";
import type { Endpoint } from "./request-checks.js";

export interface MatchmakingRouteDeps {
  license: Pick<LicenseClient, "require">;
  pipeline: MatchmakingPipeline;
  metrics: MatchmakingMetrics;
  /** The start-up warm-up's own requests: past the license check, not counted. */
  isWarmUpRequest: (req: Request) => boolean;
}

/** POST /matchmaking/basic and /matchmaking/advanced: a thin shell around the pipeline. */
export function mountMatchmakingRoutes(app: Express, deps: MatchmakingRouteDeps): void {
  const { metrics } = deps;
  const handle = (endpoint: Endpoint) => async (req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    const warmingUp = deps.isWarmUpRequest(req);
    if (!warmingUp) deps.license.require(endpoint === "advanced" ? "advanced" : undefined);
    const body = requireJsonBody(req);
    const outcome = await deps.pipeline.run(endpoint, rawBodyOf(req), body, req.query.explain);
    // Only a response sent in full gives its buffer back; an aborted one leaves it to the collector.
    res.once("finish", outcome.release);
    res.type("application/json").send(outcome.answer);
    if (warmingUp) return;
    metrics.findMatchesSeconds.observe(outcome.matchingSeconds);
    metrics.ticketsPerRequest.observe(outcome.tickets);
    metrics.matchesReturned.inc(outcome.matches);
    metrics.unmatchedTicketsReturned.inc(outcome.unmatched);
    metrics.requestSeconds.observe(secondsSince(started));
  };
  const paths = ["/matchmaking/basic", "/matchmaking/advanced"];
  app.post(paths[0]!, handle("basic"));
  app.post(paths[1]!, handle("advanced"));
  // Every refusal on these paths, including the body parser's (413, malformed JSON), by its code.
  app.use(paths, (err: unknown, req: Request, _res: Response, next: NextFunction) => {
    if (!deps.isWarmUpRequest(req)) metrics.refused.inc({ reason: asAppError(err).code.toLowerCase() });
    next(err);
  });
}
