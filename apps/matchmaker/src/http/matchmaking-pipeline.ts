import { randomUUID } from "node:crypto";
import { AppError, type Clock } from "@arena/service-kit";
import { PendingAnswer } from "../answer/answer-path.js";
import { BytePool } from "../answer/byte-pool.js";
import type { RawJsonBody } from "../answer/raw-json-body.js";
import type { SpanScanner } from "../answer/span-scanner.js";
import { findMatches, type MatchGameMode, type MatchTicket, SearchScratch } from "../matching/index.js";
import {
  checkMatchmakingRequest,
  checkMatchSize,
  checkTicketLimit,
  type Endpoint,
  type RequestLimits,
} from "./request-checks.js";
import { validateMatchmakingBody } from "./request-validation.js";

export const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** `?explain=true|false`; the body's `explain` applies when the query does not say. */
function explainWanted(query: unknown, bodyExplain: boolean | undefined): boolean {
  if (query === undefined) return bodyExplain === true;
  if (query === "true") return true;
  if (query === "false") return false;
  const detail = "the query parameter explain must be true or false";
  throw new AppError("VALIDATION_FAILED", `Invalid request: ${detail}`, {
    errors: [{ pointer: "/explain", detail }],
  });
}

export interface MatchmakingPipelineDeps {
  limits: RequestLimits;
  /** The current time; requests may override it with `now` (Unix seconds) to replay a queue. */
  clock: Clock;
  spanScanner: SpanScanner;
}

/** One request's outcome, for the answer and the metrics. */
export interface MatchmakingOutcome {
  answer: string | Buffer;
  /** Call once the answer has been sent: its buffer then serves the next answer. */
  release: () => void;
  tickets: number;
  matches: number;
  unmatched: number;
  matchingSeconds: number;
}

/**
 * Everything a matchmaking request does after the license check: validation, the checks, the
 * search and the answer. The routes and the start-up warm-up run the same code.
 */
export class MatchmakingPipeline {
  // Requests are matched one at a time on this thread, so they can share the search's memory.
  private readonly scratch = new SearchScratch();
  // The answers' bytes, reused from one request to the next (see BytePool).
  private readonly answerBuffers = new BytePool();

  constructor(private readonly deps: MatchmakingPipelineDeps) {}

  async run(
    endpoint: Endpoint,
    raw: RawJsonBody | undefined,
    body: unknown,
    explainQuery: unknown,
  ): Promise<MatchmakingOutcome> {
    const { deps } = this;
    checkTicketLimit(body, deps.limits.maxTickets);
    // Starts the ticket-span scan, which needs only the bytes: with a worker scanner it runs while
    // this thread validates and matches; its result is only used once the request has proved valid.
    const answer = new PendingAnswer(raw, body, deps.spanScanner);
    const request = validateMatchmakingBody(body);
    const explain = explainWanted(explainQuery, request.explain);
    const gameMode = request.game_mode as MatchGameMode;
    checkMatchSize(gameMode, deps.limits);
    const tickets = request.tickets as MatchTicket[];
    // The algorithm counts in Unix seconds, as the wire does (fractions kept).
    const now = request.now ?? deps.clock.now().getTime() / 1000;
    checkMatchmakingRequest(gameMode, tickets, endpoint, now, deps.limits);
    // A fresh seed per request keeps match and team ids unique across calls; the matches
    // themselves depend only on the request.
    const matchingStarted = process.hrtime.bigint();
    const result = findMatches(gameMode, tickets, {
      now,
      idSeed: randomUUID(),
      explain,
      scratch: this.scratch,
    });
    const matchingSeconds = secondsSince(matchingStarted);
    const written = await answer.write(result, this.answerBuffers);
    return {
      answer: written.body,
      release: written.release,
      tickets: tickets.length,
      matches: result.matchSuggestions.length,
      unmatched: result.unmatchedTickets.length,
      matchingSeconds,
    };
  }
}
