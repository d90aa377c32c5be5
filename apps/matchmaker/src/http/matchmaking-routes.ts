import { randomUUID } from "node:crypto";
import type { LicenseClient } from "@arena/license-client";
import { AppError, asAppError, requireJsonBody } from "@arena/service-kit";
import type { Express, NextFunction, Request, Response } from "express";
import { PendingAnswer } from "../answer/answer-path.js";
import { rawBodyOf } from "../answer/raw-json-body.js";
import type { SpanScanner } from "../answer/span-scanner.js";
import { findMatches, type MatchGameMode, type MatchTicket, SearchScratch } from "../matching/index.js";
import {
  checkMatchmakingRequest,
  checkMatchSize,
  checkTicketLimit,
  type Endpoint,
  type RequestLimits,
} from "./request-checks.js";
import type { MatchmakingMetrics } from "./matchmaking-metrics.js";
import { validateMatchmakingBody } from "./request-validation.js";

const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** `?explain=true|false`; the body's `explain` applies when the query does not say. */
function explainWanted(req: Request, bodyExplain: boolean | undefined): boolean {
  const query = req.query.explain;
  if (query === undefined) return bodyExplain === true;
  if (query === "true") return true;
  if (query === "false") return false;
  const detail = "the query parameter explain must be true or false";
  throw new AppError("VALIDATION_FAILED", `Invalid request: ${detail}`, {
    errors: [{ pointer: "/explain", detail }],
  });
}

export interface MatchmakingRouteDeps {
  license: Pick<LicenseClient, "require">;
  limits: RequestLimits;
  /** Current time in Unix seconds; requests may override it with `now` to replay a queue. */
  clock: () => number;
  spanScanner: SpanScanner;
  metrics: MatchmakingMetrics;
}

/** POST /matchmaking/basic and /matchmaking/advanced: a thin shell around `findMatches`. */
export function mountMatchmakingRoutes(app: Express, deps: MatchmakingRouteDeps): void {
  // Requests are matched one at a time on this thread, so they can share the search's memory.
  const scratch = new SearchScratch();
  const { metrics } = deps;
  const handle = (endpoint: Endpoint) => async (req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    deps.license.require(endpoint === "advanced" ? "advanced" : undefined);
    const body = requireJsonBody(req);
    checkTicketLimit(body, deps.limits.maxTickets);
    // Starts the ticket-span scan, which needs only the bytes: with a worker scanner it runs while
    // this thread validates and matches; its result is only used once the request has proved valid.
    const answer = new PendingAnswer(rawBodyOf(req), body, deps.spanScanner);
    const request = validateMatchmakingBody(body);
    const explain = explainWanted(req, request.explain);
    const gameMode = request.game_mode as MatchGameMode;
    checkMatchSize(gameMode, deps.limits);
    const tickets = request.tickets as MatchTicket[];
    const now = request.now ?? deps.clock();
    checkMatchmakingRequest(gameMode, tickets, endpoint, now, deps.limits);
    // A fresh seed per request keeps match and team ids unique across calls; the matches
    // themselves depend only on the request.
    const matchingStarted = process.hrtime.bigint();
    const result = findMatches(gameMode, tickets, { now, idSeed: randomUUID(), explain, scratch });
    metrics.findMatchesSeconds.observe(secondsSince(matchingStarted));
    res.type("application/json").send(await answer.write(result));
    metrics.ticketsPerRequest.observe(tickets.length);
    metrics.matchesReturned.inc(result.matchSuggestions.length);
    metrics.unmatchedTicketsReturned.inc(result.unmatchedTickets.length);
    metrics.requestSeconds.observe(secondsSince(started));
  };
  const paths = ["/matchmaking/basic", "/matchmaking/advanced"];
  app.post(paths[0]!, handle("basic"));
  app.post(paths[1]!, handle("advanced"));
  // Every refusal on these paths, including the body parser's (413, malformed JSON), by its code.
  app.use(paths, (err: unknown, _req: Request, _res: Response, next: NextFunction) => {
    metrics.refused.inc({ reason: asAppError(err).code.toLowerCase() });
    next(err);
  });
}
