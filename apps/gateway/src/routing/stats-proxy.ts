import type { IncomingHttpHeaders } from "node:http";
import {
  INTERNAL_API_VERSION,
  INTERNAL_API_VERSION_HEADER,
  internalApiVersionOf,
  OLDEST_SUPPORTED_INTERNAL_API_VERSION,
  servesInternalApiVersion,
} from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { Request, Response } from "express";
import { type Dispatcher, Pool, errors as undiciErrors, util as undiciUtil } from "undici";
import { forwardedBodyOf } from "./forwarded-body.js";
import { LeaderboardBatches } from "./leaderboard-batches.js";
import {
  type CachedAnswer,
  changesBoards,
  type Fetched,
  type LeaderboardCache,
  leaderboardCacheKey,
} from "./leaderboard-cache.js";
import type { UpstreamCall, WholeAnswer } from "./upstream-call.js";

export interface StatsUpstreamOptions {
  url: string;
  serviceToken: string;
  /** Longest wait for a TCP connection to stats. */
  connectTimeoutMs: number;
  /** Longest wait for stats' answer headers, and between two chunks of its body. */
  timeoutMs: number;
  connections: number;
  /** Leaderboard reads kept on this replica; board-changing calls (REST or WebSocket) drop their tenant's. */
  leaderboardCache?: LeaderboardCache;
  /** Most leaderboard reads of one board sent to stats in one call under load; 1 (default): each alone. */
  leaderboardBatchReads?: number;
}

/** Answers up to this size (by Content-Length) are buffered and sent in one write. */
const SMALL_ANSWER_BYTES = 64 * 1024;
/**
 * Longest answer `callWhole` reads: a leaderboard's is bounded by its contract (500 entries of
 * ids of at most 256 characters: about 150 KB).
 */
const WHOLE_ANSWER_MAX_BYTES = 1024 * 1024;

/** Stats' answer read whole: the status, the headers and the body parsed when it is JSON. */
export interface UpstreamAnswer {
  status: number;
  headers: Dispatcher.ResponseData["headers"];
  body: unknown;
}

/** Headers of stats' answer that reach the client besides the status, content type and body. */
const PASSED_ANSWER_HEADERS = ["location", "retry-after", "preference-applied", "cache-control"] as const;

/**
 * Forwards hosted REST calls to stats over kept-alive connections (an undici Pool). The wire
 * protocol (agreed with stats): the same method, path and query; the body unchanged; headers
 * `authorization: Bearer <SERVICE_TOKEN>`, `x-arena-tenant`, `x-arena-role`, `x-request-id`,
 * `x-arena-internal-api` (this gateway's internal API version) and `prefer` passed through. Stats'
 * status, content type and body come back unchanged, unless stats names an internal API version
 * older than this gateway serves (502: a deploy mixed releases more than one apart).
 *
 * Time is bounded by undici's own timers (connect, headers, body), not by AbortSignals, which
 * Node 20 can lose to garbage collection. Stats down → 503, timing out → 504,
 * failing mid-answer → 502; all fast, never a hang.
 */
export class StatsUpstream {
  private readonly pool: Pool;
  private readonly authorization: string;
  private readonly cache: LeaderboardCache | undefined;
  /** Leaderboard reads the cache does not answer, to stats alone or together (LEADERBOARD_BATCH_READS). */
  readonly leaderboardReads: LeaderboardBatches;

  constructor(options: StatsUpstreamOptions) {
    this.cache = options.leaderboardCache?.enabled ? options.leaderboardCache : undefined;
    this.leaderboardReads = new LeaderboardBatches((call, maxBytes) => this.callWhole(call, maxBytes), {
      maxReads: options.leaderboardBatchReads ?? 1,
    });
    this.pool = new Pool(options.url, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connectTimeout: options.connectTimeoutMs,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.authorization = `Bearer ${options.serviceToken}`;
  }

  /**
   * The upstream call whose answer is read whole (leaderboards, the WebSocket's actions): sends
   * `call` with the service token and the tenant on the pool's dispatcher and gathers the chunks
   * into one Buffer, without the body stream `pool.request` makes for every answer (a tenth of the
   * gateway's time on a proxied read went to that stream's events). An answer longer than
   * `maxBytes` is a 502. Failures to reach stats or to get its answer in time reject with the
   * AppError the client should see (503, 504, 502).
   */
  callWhole(call: UpstreamCall, maxBytes = WHOLE_ANSWER_MAX_BYTES): Promise<WholeAnswer> {
    return new Promise<WholeAnswer>((resolve, reject) => {
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      const fail = (err: unknown) => {
        this.afterCall(call);
        reject(err instanceof AppError ? err : upstreamError(err));
      };
      let abort: (err: Error) => void = () => {};
      // undici's own handler interface at the Client (onConnect … onError).
      const handler: Dispatcher.DispatchHandler = {
        onConnect: (abortRequest) => {
          abort = abortRequest;
        },
        onHeaders: (statusCode, rawHeaders) => {
          status = statusCode;
          headers = undiciUtil.parseHeaders(rawHeaders) as IncomingHttpHeaders;
          try {
            requireServedStatsHeaders(headers);
          } catch (err) {
            abort(err as Error);
            return false;
          }
          return true;
        },
        onData: (chunk) => {
          size += chunk.length;
          if (size > maxBytes) {
            abort(new AppError("UPSTREAM_FAILED", "The stats service answered more than expected"));
            return false;
          }
          chunks.push(chunk);
          return true;
        },
        onComplete: () => {
          this.afterCall(call);
          resolve({
            status,
            headers,
            body: joined(chunks, size),
          });
        },
        onError: (err) => fail(err),
      };
      this.dispatch(call, handler, fail);
    });
  }

  /** Sends `call` on the pool's dispatcher to `handler`; a call undici refuses at once goes to `fail`. */
  private dispatch(
    call: UpstreamCall,
    handler: Dispatcher.DispatchHandler,
    fail: (err: unknown) => void,
  ): void {
    try {
      this.pool.dispatch(
        { method: call.method, path: call.path, headers: this.headersOf(call), body: call.body ?? null },
        handler,
      );
    } catch (err) {
      fail(err);
    }
  }

  private headersOf(call: UpstreamCall): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: this.authorization,
      "x-arena-tenant": call.tenantId,
      "x-request-id": call.requestId,
      [INTERNAL_API_VERSION_HEADER]: String(INTERNAL_API_VERSION),
    };
    if (call.role !== undefined) headers["x-arena-role"] = call.role;
    if (call.prefer !== undefined) headers.prefer = call.prefer;
    if (call.body !== undefined) headers["content-type"] = call.contentType ?? "application/json";
    return headers;
  }

  /**
   * Whatever the outcome (a timed-out write may still have committed), this replica's cached
   * reads of the tenant are dropped once a board-changing call is over, so its next read sees it.
   */
  private afterCall(call: UpstreamCall): void {
    if (this.cache !== undefined && call.method !== "GET" && changesBoards(call.method, call.path)) {
      this.cache.invalidateTenant(call.tenantId);
    }
  }

  /**
   * `callWhole` with the answer decoded (JSON parsed; anything else as text, no body as
   * undefined), of any length, as the WebSocket's actions have always been read.
   */
  async callAndRead(call: UpstreamCall): Promise<UpstreamAnswer> {
    const answer = await this.callWhole(call, Number.POSITIVE_INFINITY);
    const text = answer.body.toString("utf8");
    const contentType = String(answer.headers["content-type"] ?? "");
    let body: unknown = text === "" ? undefined : text;
    if (text !== "" && /[/+]json\b/.test(contentType)) {
      try {
        body = JSON.parse(text);
      } catch (err) {
        throw new AppError("UPSTREAM_FAILED", "The stats service answered malformed JSON", { cause: err });
      }
    }
    return { status: answer.status, headers: answer.headers, body };
  }

  /** The upstream call that forwards `req` as its authenticated principal. */
  private callOf(req: Request): UpstreamCall {
    const principal = req.principal;
    if (!principal) throw new Error("forward runs after authentication");
    const body = forwardedBodyOf(req);
    return {
      method: req.method as UpstreamCall["method"],
      path: req.originalUrl,
      tenantId: principal.tenantId,
      role: principal.role,
      requestId: req.id,
      prefer: req.get("prefer"),
      ...(body === undefined ? {} : { body, contentType: req.get("content-type") ?? "application/json" }),
    };
  }

  /**
   * Express handler: forwards `req` as the authenticated principal and relays the answer, on the
   * pool's dispatcher as `callWhole` reads leaderboards (no body stream per answer). A small answer
   * (stats' usual) is gathered and sent in one write; one longer than SMALL_ANSWER_BYTES (by its
   * Content-Length, or as its chunks arrive) is written through as it comes, paused while the
   * client's socket is full. Failures before anything was sent reject with the AppError the client
   * should see (503, 504, 502); after, the client's answer is cut short.
   */
  forward(req: Request, res: Response): Promise<void> {
    const call = this.callOf(req);
    return new Promise<void>((resolve, reject) => {
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      let chunks: Buffer[] = [];
      let size = 0;
      let streaming = false;
      let settled = false;
      let abort: (err: Error) => void = () => {};
      let resume: () => void = () => {};
      const finish = (err?: unknown) => {
        if (settled) return;
        settled = true;
        this.afterCall(call);
        if (err === undefined) resolve();
        else if (!streaming) reject(err instanceof AppError ? err : upstreamError(err));
        else {
          // Headers are sent: the client sees a cut-short answer. A client that hung up is no news.
          if (req.destroyed || res.destroyed)
            req.log.debug({ err: (err as Error).message }, "client left before the answer");
          else req.log.warn({ err: (err as Error).message }, "stats answer interrupted");
          res.destroy();
          resolve();
        }
      };
      const startStreaming = () => {
        streaming = true;
        res.status(status);
        for (const [name, value] of passedHeadersOf(headers)) res.setHeader(name, value);
        res.once("close", () => {
          if (!settled) abort(new Error("client left"));
        });
        for (const chunk of chunks) res.write(chunk);
        chunks = [];
      };
      const handler: Dispatcher.DispatchHandler = {
        onConnect: (abortRequest) => {
          abort = abortRequest;
        },
        onHeaders: (statusCode, rawHeaders, resumeAnswer) => {
          status = statusCode;
          headers = undiciUtil.parseHeaders(rawHeaders) as IncomingHttpHeaders;
          resume = resumeAnswer;
          try {
            requireServedStatsHeaders(headers);
          } catch (err) {
            abort(err as Error);
            return false;
          }
          if (Number(headers["content-length"] ?? 0) > SMALL_ANSWER_BYTES) startStreaming();
          return true;
        },
        onData: (chunk) => {
          if (!streaming) {
            size += chunk.length;
            chunks.push(chunk);
            if (size > SMALL_ANSWER_BYTES) startStreaming();
            return true;
          }
          if (res.write(chunk)) return true;
          res.once("drain", () => resume());
          return false;
        },
        onComplete: () => {
          if (streaming) res.end();
          else sendWhole(res, status, passedHeadersOf(headers), joined(chunks, size));
          finish();
        },
        onError: (err) => finish(err),
      };
      this.dispatch(call, handler, finish);
    });
  }

  /**
   * Express handler of leaderboard reads: served from this replica's cache when it holds the
   * answer (with `Age`; around-player reads are never kept), else read whole from stats
   * (`leaderboardReads`: alone, or under load in a batch of the board's reads), one upstream call
   * shared by concurrent identical reads. Only a 200 is kept; anything else reaches its own caller
   * only, with stats' status, headers and body as `forward` sends them.
   */
  async forwardCached(req: Request, res: Response): Promise<void> {
    const call = this.callOf(req);
    const gameId = req.params.gameId as string;
    const cache = this.cache;
    // An around-player read is one player's, seldom read twice within the staleness bound: kept,
    // it would only push the shared pages (from the top, from a rank) out of the cache.
    if (cache === undefined || (req.body as { playerId?: unknown } | undefined)?.playerId !== undefined) {
      // This read is its client's alone (no cache entry shares it): once the client has left, it
      // need not go (answered CLIENT_GONE, which the closed response does not send).
      call.gone = () => res.destroyed;
      const answer = await this.leaderboardReads.read(call, gameId);
      sendWhole(res, answer.status, passedHeadersOf(answer.headers), answer.body);
      return;
    }
    let own: WholeAnswer | undefined;
    const outcome = await cache.read(call.tenantId, leaderboardCacheKey(call), async (): Promise<Fetched> => {
      const answer = await this.leaderboardReads.read(call, gameId);
      // Only a 200 small enough for the cache's memory bound is kept; anything else is its caller's.
      if (answer.status !== 200 || answer.body.length > SMALL_ANSWER_BYTES) {
        own = answer;
        return { cacheable: false };
      }
      return { cacheable: true, answer: { headers: passedHeadersOf(answer.headers), body: answer.body } };
    });
    if (outcome.kind === "hit") {
      res.setHeader("age", String(Math.floor(outcome.ageMs / 1000)));
      sendWhole(res, 200, outcome.answer.headers, outcome.answer.body);
    } else if (outcome.kind === "coalesced") {
      sendWhole(res, 200, outcome.answer.headers, outcome.answer.body);
    } else if (outcome.fetched.cacheable) {
      sendWhole(res, 200, outcome.fetched.answer.headers, outcome.fetched.answer.body);
    } else if (own !== undefined) {
      const answer: WholeAnswer = own;
      sendWhole(res, answer.status, passedHeadersOf(answer.headers), answer.body);
    } else throw new Error("a leaderboard read without an answer of its own");
  }

  /** Readiness: stats answers its /livez. */
  async check(): Promise<void> {
    const { statusCode, body } = await this.pool.request({ method: "GET", path: "/livez" });
    await body.dump();
    if (statusCode !== 200) throw new Error(`stats /livez answered ${statusCode}`);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The headers of stats' answer that reach the client: content type and PASSED_ANSWER_HEADERS. */
function passedHeadersOf(headers: Dispatcher.ResponseData["headers"]): Array<[string, string]> {
  const passed: Array<[string, string]> = [];
  const contentType = headers["content-type"];
  if (typeof contentType === "string") passed.push(["content-type", contentType]);
  for (const name of PASSED_ANSWER_HEADERS) {
    const value = headers[name];
    if (typeof value === "string") passed.push([name, value]);
  }
  return passed;
}

/** The chunks of an answer as one Buffer (the one chunk itself when there is one). */
function joined(chunks: Buffer[], size: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

function sendWhole(res: Response, status: number, headers: CachedAnswer["headers"], body: Buffer): void {
  res.status(status);
  for (const [name, value] of headers) res.setHeader(name, value);
  res.end(body);
}

/** Refuses (502) an answer from a stats older than the oldest internal API version this gateway serves. */
function requireServedStatsHeaders(headers: IncomingHttpHeaders): void {
  const header = headers[INTERNAL_API_VERSION_HEADER];
  const named = Array.isArray(header) ? header[0] : header;
  if (servesInternalApiVersion(internalApiVersionOf(named))) return;
  throw new AppError(
    "UPSTREAM_FAILED",
    `The stats service speaks internal API version ${JSON.stringify(named)}; this gateway serves ${OLDEST_SUPPORTED_INTERNAL_API_VERSION} or later`,
  );
}

function upstreamError(err: unknown): AppError {
  const code = (err as { code?: string }).code;
  if (
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    err instanceof undiciErrors.ConnectTimeoutError
  ) {
    return new AppError("UPSTREAM_TIMEOUT", "The stats service did not answer in time", { cause: err });
  }
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EHOSTUNREACH" || code === "EAI_AGAIN") {
    return new AppError("SERVICE_UNAVAILABLE", "The stats service cannot be reached; try again shortly", {
      cause: err,
      headers: { "Retry-After": "1" },
    });
  }
  return new AppError("UPSTREAM_FAILED", "The stats service failed to answer", { cause: err });
}
