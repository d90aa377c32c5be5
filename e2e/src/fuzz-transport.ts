import WebSocket from "ws";
import { type Envelope, openGatewaySocket } from "./clients.js";
import type { RestCase } from "./fuzz-cases.js";

/**
 * The fuzzer's two transports, which keep what a hostile request got back as it came (status,
 * content type, raw text, a close code), so the verdict can say exactly what was wrong.
 */

export type RestOutcome =
  | { kind: "answer"; status: number; contentType: string; text: string }
  | { kind: "no-answer"; error: string };

const PROBLEM_CONTENT_TYPE = "application/problem+json";

export async function sendRestCase(baseUrl: string, token: string, c: RestCase): Promise<RestOutcome> {
  try {
    const res = await fetch(`${baseUrl}${c.path}`, {
      method: c.method,
      headers: {
        authorization: token,
        ...(c.body === undefined ? {} : { "content-type": "application/json" }),
        ...(c.prefer ? { prefer: "return=representation" } : {}),
      },
      body: c.body,
      signal: AbortSignal.timeout(20_000),
    });
    return {
      kind: "answer",
      status: res.status,
      contentType: res.headers.get("content-type") ?? "",
      text: await res.text(),
    };
  } catch (err) {
    return { kind: "no-answer", error: String((err as Error).cause ?? err) };
  }
}

/** What is wrong with a REST answer; undefined when it is a 2xx or a 4xx problem with a code. */
export function restViolation(outcome: RestOutcome): string | undefined {
  if (outcome.kind === "no-answer") return `no answer (${outcome.error})`;
  const { status, contentType, text } = outcome;
  if (status >= 200 && status < 300) return undefined;
  if (status < 400 || status >= 500) return `${status}`;
  if (!contentType.startsWith(PROBLEM_CONTENT_TYPE))
    return `${status} as ${contentType || "no content type"}`;
  let problem: { status?: unknown; code?: unknown };
  try {
    problem = JSON.parse(text) as typeof problem;
  } catch {
    return `${status} with a problem body that is not JSON`;
  }
  if (typeof problem.code !== "string") return `${status} problem without a code`;
  if (problem.status !== status) return `${status} problem saying status ${String(problem.status)}`;
  return undefined;
}

export type SocketOutcome =
  | { kind: "answer"; envelope: Envelope }
  | { kind: "closed"; code: number; reason: string }
  | { kind: "no-answer" };

/** Pushes have one of these actions (answers end in `Response`); anything else is an answer. */
const PUSHES = new Set(["matchSuggestion", "backfillingMatchSuggestion", "playersRemoved", "keepAlive"]);

/**
 * One WebSocket that sends one frame at a time and waits for what comes of it: the answer (any
 * message that is not a push, since a hostile messageId is answered as null), a close, or nothing.
 * Pushes are kept apart.
 */
export class FuzzSocket {
  readonly pushes: Envelope[] = [];
  private pending: ((outcome: SocketOutcome) => void) | undefined;
  private closed: { code: number; reason: string } | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as Envelope;
      if (PUSHES.has(message.action)) {
        this.pushes.push(message);
        return;
      }
      this.settle({ kind: "answer", envelope: message });
    });
    socket.on("close", (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.settle({ kind: "closed", ...this.closed });
    });
    socket.on("error", () => {
      // The close that follows says what happened.
    });
  }

  static async connect(gatewayUrl: string, token: string): Promise<FuzzSocket> {
    return new FuzzSocket(await openGatewaySocket(gatewayUrl, token));
  }

  get isOpen(): boolean {
    return this.closed === undefined;
  }

  /** Sends one frame and waits for its outcome. */
  exchange(frame: string | Buffer, binary = false, timeoutMs = 15_000): Promise<SocketOutcome> {
    if (this.closed !== undefined) return Promise.resolve({ kind: "closed", ...this.closed });
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle({ kind: "no-answer" }), timeoutMs);
      this.pending = (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      this.socket.send(frame, { binary });
    });
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((r) => this.socket.once("close", r));
    this.socket.close();
    await closed;
  }

  private settle(outcome: SocketOutcome): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.(outcome);
  }
}

/** Close codes a hostile frame may end its connection with: the documented ones. */
const DOCUMENTED_CLOSES: Readonly<Record<number, string>> = {
  1007: "a text frame that is not UTF-8 (RFC 6455 requires the close)",
  1008: "policy violation",
  1009: "message larger than WS_MAX_MESSAGE_BYTES",
};

/**
 * What is wrong with the outcome of a frame; undefined when it was answered with the action's
 * response (or an error answer with a 4xx code), or closed with a documented code.
 */
export function socketViolation(
  outcome: SocketOutcome,
  expectedActions: readonly string[],
): string | undefined {
  if (outcome.kind === "no-answer") return "no answer";
  if (outcome.kind === "closed") {
    return DOCUMENTED_CLOSES[outcome.code] === undefined
      ? `closed ${outcome.code} ${outcome.reason}`
      : undefined;
  }
  const { envelope } = outcome;
  if (!expectedActions.includes(envelope.action)) return `answered as ${envelope.action}`;
  if (envelope.error !== undefined) {
    const { code } = envelope.error;
    return code >= 400 && code < 500 ? undefined : `error ${code}: ${envelope.error.message}`;
  }
  return envelope.payload === undefined ? "answer without payload or error" : undefined;
}
