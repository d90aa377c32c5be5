import type { AccessTokens } from "../access-tokens.js";
import { ArenaApiError, DeadlineError, NetworkError } from "../errors.js";
import { OPERATIONS, type OperationId } from "../generated/operations.js";
import { type ClientHooks, safely } from "../hooks.js";
import { CallDeadline } from "./call-deadline.js";
import { isRepeatable } from "./repeatable.js";
import { type AttemptOutcome, type RetryOptions, retryDelay } from "./retry-policy.js";

export interface CallOptions {
  /** This call's deadline, all attempts and waits included (default: the client's `deadlineMs`). */
  deadlineMs?: number;
  /** Aborts the call (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface HttpClientSettings {
  baseUrl: string;
  tokens: AccessTokens;
  hooks?: ClientHooks;
  deadlineMs: number;
  retry: RetryOptions;
}

/** An operation's input as the generated types describe it: path parameters, `query`, `body`. */
type Input = Record<string, unknown> & { query?: Record<string, unknown>; body?: unknown };

/** What one attempt came back with. */
type Attempt = { kind: "answer"; response: Response; body: unknown } | { kind: "network"; error: unknown };

/**
 * Calls one operation of the hosted API on global fetch: the token from AccessTokens (one retry
 * with a fresh token after a 401), retries as retry-policy.ts decides, all within the deadline,
 * and one `call` metric per call.
 */
export class HttpClient {
  constructor(private readonly settings: HttpClientSettings) {}

  async call(operationId: OperationId, input: Input, options: CallOptions = {}): Promise<unknown> {
    const started = Date.now();
    const deadline = new CallDeadline(options.deadlineMs ?? this.settings.deadlineMs, options.signal);
    let attempts = 0;
    let finalStatus: number | "network" = "network";
    try {
      const request = this.requestOf(operationId, input);
      let freshTokenTried = false;
      for (;;) {
        attempts += 1;
        const token = await deadline.within(this.settings.tokens.current());
        const attempt = await this.attempt(request, token, deadline);
        if (attempt.kind === "answer") finalStatus = attempt.response.status;
        if (attempt.kind === "answer" && attempt.response.status === 401 && !freshTokenTried) {
          freshTokenTried = true;
          attempts -= 1; // the token's retry is not one of the policy's attempts
          this.settings.tokens.rejected(token);
          this.retried(operationId, attempts + 1, "token", 0, 401);
          continue;
        }
        if (attempt.kind === "answer" && attempt.response.ok) return attempt.body;
        const outcome: AttemptOutcome =
          attempt.kind === "network"
            ? { network: true }
            : { status: attempt.response.status, retryAfter: attempt.response.headers.get("retry-after") };
        const delay = retryDelay(outcome, attempts, isRepeatable(operationId), this.settings.retry);
        if (delay === undefined || delay > deadline.remainingMs()) throw this.failure(operationId, attempt);
        this.retried(
          operationId,
          attempts,
          attempt.kind === "network" ? "network" : "status",
          delay,
          finalStatus,
        );
        await deadline.sleep(delay);
      }
    } catch (error) {
      if (deadline.expired) throw new DeadlineError(operationId, deadline.deadlineMs, error);
      throw error;
    } finally {
      deadline.dispose();
      safely(this.settings.hooks?.metrics?.call, {
        operationId,
        status: finalStatus,
        durationMs: Date.now() - started,
        attempts,
      });
    }
  }

  private requestOf(operationId: OperationId, input: Input) {
    const op = OPERATIONS[operationId];
    const path = op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) =>
      encodeURIComponent(String(input[name])),
    );
    const url = new URL(this.settings.baseUrl.replace(/\/+$/, "") + path);
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json, application/problem+json" };
    // Operations with two success answers: always the one with a body, so every call resolves to data.
    if ("representation" in op) headers.prefer = "return=representation";
    let body: string | undefined;
    if (op.body !== "none" && (input.body !== undefined || op.body === "required")) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(input.body ?? {});
    }
    return { operationId, method: op.method, url: url.toString(), headers, body };
  }

  private async attempt(
    request: ReturnType<HttpClient["requestOf"]>,
    token: string,
    deadline: CallDeadline,
  ): Promise<Attempt> {
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: { ...request.headers, authorization: token },
        body: request.body,
        signal: deadline.signal,
      });
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      return { kind: "network", error };
    }
    try {
      const text = await response.text();
      return { kind: "answer", response, body: text ? JSON.parse(text) : undefined };
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      // The answer was cut while its body was read, or it is not JSON: the outcome is unknown.
      if (response.ok) return { kind: "network", error };
      return { kind: "answer", response, body: undefined };
    }
  }

  private failure(operationId: OperationId, attempt: Attempt): Error {
    if (attempt.kind === "network") return new NetworkError(operationId, attempt.error);
    const problem =
      typeof attempt.body === "object" && attempt.body !== null
        ? (attempt.body as Record<string, unknown>)
        : {};
    const requestId = attempt.response.headers.get("x-request-id") ?? undefined;
    const error = new ArenaApiError(operationId, attempt.response.status, problem, requestId);
    safely(this.settings.hooks?.logger?.warn, `${operationId} failed`, {
      status: error.status,
      code: error.code,
      requestId: error.requestId,
    });
    return error;
  }

  private retried(
    operationId: OperationId,
    attempt: number,
    reason: "status" | "network" | "token",
    delayMs: number,
    status: number | "network",
  ): void {
    const event = {
      operationId,
      attempt,
      reason,
      delayMs,
      ...(typeof status === "number" ? { status } : {}),
    };
    safely(this.settings.hooks?.metrics?.retry, event);
    safely(this.settings.hooks?.logger?.debug, `${operationId} retried`, { ...event });
  }
}
