import { randomUUID } from "node:crypto";
import type { LicenseClient } from "@arena/license-client";
import { AppError, requireJsonBody } from "@arena/service-kit";
import type { Express, Request, Response } from "express";
import {
  findMatches,
  type MatchGameMode,
  type MatchResult,
  type MatchTicket,
  SearchScratch,
} from "../matching/index.js";
import {
  checkMatchmakingRequest,
  checkMatchSize,
  checkTicketLimit,
  type Endpoint,
  type RequestLimits,
} from "./request-checks.js";
import { validateMatchmakingBody } from "./request-validation.js";
import { answerIsAscii, serializeMatchResult, writeMatchResultFromSpans } from "./response-serializer.js";
import type { SpanScanner } from "./span-scanner.js";
import type { TicketSpans } from "./ticket-spans.js";

/**
 * Starts finding the ticket spans of an ASCII body (the fast answer path), or null when the answer
 * will be serialized from the parsed tickets instead. Never rejects: a failed scan means null.
 */
function startSpanScan(
  req: Request,
  body: unknown,
  scanner: SpanScanner,
): Promise<TicketSpans | null> | null {
  const raw = req.rawBody;
  const tickets = (body as { tickets?: unknown } | null)?.tickets;
  if (raw?.asciiText === undefined || !Array.isArray(tickets)) return null;
  return scanner.scan(raw.bytes, tickets.length).catch(() => null);
}

/**
 * The answer: assembled from slices of the request's own text when its spans were found, else
 * serialized from the parsed tickets. Both give the same JSON.
 */
function writeAnswer(req: Request, spans: TicketSpans | null, result: MatchResult): string | Buffer {
  const text = req.rawBody?.asciiText;
  if (text === undefined || !spans) return serializeMatchResult(result);
  const answer = writeMatchResultFromSpans(result, text, spans);
  // An ASCII answer (slices of an ASCII request, uuids, numbers, ASCII server names) is its own
  // UTF-8 in latin1, and converting it is a plain copy without a UTF-8 pass.
  return answerIsAscii(result) ? Buffer.from(answer, "latin1") : answer;
}

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
}

/** POST /matchmaking/basic and /matchmaking/advanced: a thin shell around `findMatches`. */
export function mountMatchmakingRoutes(app: Express, deps: MatchmakingRouteDeps): void {
  // Requests are matched one at a time on this thread, so they can share the search's memory.
  const scratch = new SearchScratch();
  const handle = (endpoint: Endpoint) => async (req: Request, res: Response) => {
    deps.license.require(endpoint === "advanced" ? "advanced" : undefined);
    const body = requireJsonBody(req);
    checkTicketLimit(body, deps.limits.maxTickets);
    // The scan needs only the bytes: with a worker scanner it runs while this thread validates
    // and matches; its result is only used once the request has proved valid.
    const spans = startSpanScan(req, body, deps.spanScanner);
    const request = validateMatchmakingBody(body);
    const explain = explainWanted(req, request.explain);
    const gameMode = request.game_mode as MatchGameMode;
    checkMatchSize(gameMode, deps.limits);
    const tickets = request.tickets as MatchTicket[];
    const now = request.now ?? deps.clock();
    checkMatchmakingRequest(gameMode, tickets, endpoint, now, deps.limits);
    // A fresh seed per request keeps match and team ids unique across calls; the matches
    // themselves depend only on the request.
    const result = findMatches(gameMode, tickets, { now, idSeed: randomUUID(), explain, scratch });
    res.type("application/json").send(writeAnswer(req, spans ? await spans : null, result));
  };
  app.post("/matchmaking/basic", handle("basic"));
  app.post("/matchmaking/advanced", handle("advanced"));
}
