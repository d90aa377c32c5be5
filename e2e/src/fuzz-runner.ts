import {
  type HostedOperation,
  type MessageAction,
  responseAction,
  UNREADABLE_ACTION_RESPONSE,
} from "@arena/contracts";
import fc from "fast-check";
import {
  actionMessage,
  bodyPointers,
  type FuzzTarget,
  payloadTargets,
  restCase,
  restTargets,
  withValueAt,
} from "./fuzz-cases.js";
import { excerpt, type Finding, type FuzzCaseKey, isWithheld, type KnownFailure } from "./fuzz-findings.js";
import {
  FuzzSocket,
  restViolation,
  type SocketOutcome,
  sendRestCase,
  socketViolation,
} from "./fuzz-transport.js";
import type { FuzzTenantWorld } from "./fuzz-world.js";
import {
  HOSTILE_CATALOGUE,
  type HostileValue,
  hostileValue,
  LONG_STRING_LENGTH,
  toJsonText,
} from "./hostile-values.js";
import type { PlatformGuard } from "./platform-guard.js";

/**
 * Runs the fuzz cases of one operation or action: first the matrix (every place with each value
 * of MATRIX_LABELS, the classes every field must survive), then fast-check's random picks of a
 * place and a hostile value, within the run count and time budget.
 */

export interface FuzzBudget {
  /** Random runs after the matrix. */
  runs: number;
  /** Time for the random runs; those left when it is spent are skipped. The matrix always runs whole. */
  timeMs: number;
  seed: number;
}

/** The values every place gets in the matrix: NUL, a lone surrogate, 100 KB, the extreme numbers. */
const MATRIX_LABELS = [
  "a<NUL>b",
  "<D800>",
  "a×100000",
  "1e308",
  "-1",
  "2^31",
  "2^53+1",
  "10^9",
  '"NaN"',
  "1e309",
];
export const MATRIX_VALUES: readonly HostileValue[] = MATRIX_LABELS.map((label) => {
  const value = HOSTILE_CATALOGUE.find((h) => h.label === label);
  if (value === undefined) throw new Error(`No hostile value labelled ${label}`);
  return value;
});

export interface FuzzContext {
  gatewayUrl: string;
  token: string;
  world: FuzzTenantWorld;
  findings: Finding[];
  /** Known failures: the withheld ones are not sent. */
  known: readonly KnownFailure[];
  guard: PlatformGuard;
  /** An operation or action whose every case and outcome is printed (FUZZ_TRACE). */
  trace?: string;
  /** Cases not sent because a known failure withholds them. */
  withheld: number;
  /** Outcomes per operation (`204`, `400`, `ws:ok`, `ws:404`, ...): how deep the fuzzing got. */
  outcomes: Map<string, Map<string, number>>;
}

/** The world is checked again after this many cases: a fuzzed call may have ended or changed the match. */
const CASES_PER_WORLD_CHECK = 10;

/** What came of one case. */
interface CaseResult {
  /** `204`, `400`, `ok`, `closed 1009`, `no answer`: what the outcome counts are kept by. */
  outcome: string;
  violation: string | undefined;
  /** The start of the answer, for the finding and the trace. */
  answer: string;
  /** A 5xx or nothing at all: then every app is checked to be still up. */
  serverFault: boolean;
}

/** Sends one case: `hostile` at `place`; `prefer` asks for the representation where one is offered. */
type SendCase = (place: string, hostile: HostileValue, prefer: boolean) => Promise<CaseResult>;

/**
 * The cases of one operation or action: every place with each matrix value, then fast-check's
 * random picks. A property never fails: what breaks the rule is kept as a finding, so one run
 * reports all of them. The deadline is checked in the property rather than by fast-check's
 * interruptAfterTimeLimit, which abandons the run in flight (it would race the next operation's).
 */
async function fuzzPlaces(
  ctx: FuzzContext,
  budget: FuzzBudget,
  where: { surface: Finding["surface"]; operation: string; prefix: string },
  places: readonly string[],
  send: SendCase,
): Promise<number> {
  let sent = 0;
  const run = async (place: string, hostile: HostileValue, prefer: boolean) => {
    const key: FuzzCaseKey = {
      surface: where.surface,
      operation: where.operation,
      target: `${where.prefix}${place}`,
      kind: hostile.kind,
      input: hostile.label,
    };
    if (isWithheld(key, ctx.known)) {
      ctx.withheld += 1;
      return;
    }
    sent += 1;
    if (sent % CASES_PER_WORLD_CHECK === 0) await ctx.world.ensure();
    const result = await send(place, hostile, prefer);
    await keepResult(ctx, key, result);
  };
  await ctx.world.ensure();
  for (const place of places) {
    for (const hostile of MATRIX_VALUES) await run(place, hostile, true);
  }
  const deadline = Date.now() + budget.timeMs;
  const property = fc.asyncProperty(
    fc.constantFrom(...places),
    hostileValue,
    fc.boolean(),
    async (place, hostile, prefer) => {
      if (Date.now() < deadline) await run(place, hostile, prefer);
      return true;
    },
  );
  await fc.assert(property, { seed: budget.seed, numRuns: budget.runs });
  return sent;
}

/**
 * Counts the outcome and keeps a violation as a finding; after a 5xx or no answer, checks that
 * every app is still up (a takedown is part of the finding).
 */
async function keepResult(ctx: FuzzContext, key: FuzzCaseKey, result: CaseResult): Promise<void> {
  const name = `${key.surface}:${key.operation}`;
  const counts = ctx.outcomes.get(name) ?? new Map<string, number>();
  counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
  ctx.outcomes.set(name, counts);
  if (ctx.trace === key.operation)
    console.log(`${key.target} ${key.input} → ${result.outcome} ${result.answer}`);
  if (result.violation === undefined) return;
  const takedown = result.serverFault ? await ctx.guard.check() : undefined;
  ctx.findings.push({
    ...key,
    violation: result.violation,
    answer: result.answer,
    ...(takedown ? { takedown } : {}),
  });
  // After a takedown the world's objects may be half made: check them now.
  if (takedown !== undefined) await ctx.world.ensure();
}

/** Every place of a REST operation: path and query parameters, body fields. */
export function fuzzRestOperation(
  ctx: FuzzContext,
  op: HostedOperation,
  budget: FuzzBudget,
): Promise<number> {
  const where = { surface: "rest", operation: op.operationId, prefix: "" } as const;
  return fuzzPlaces(ctx, budget, where, restTargets(op, ctx.world), async (place, hostile, prefer) => {
    const c = restCase(op, ctx.world, place as FuzzTarget, hostile, prefer);
    const outcome = await sendRestCase(ctx.gatewayUrl, ctx.token, c);
    return {
      outcome: outcome.kind === "answer" ? String(outcome.status) : "no answer",
      violation: restViolation(outcome),
      answer: outcome.kind === "answer" ? excerpt(outcome.text) : outcome.error,
      serverFault: outcome.kind === "no-answer" || outcome.status >= 500,
    };
  });
}

/** The fuzzing tenant's one WebSocket, opened again when a documented close ended it. */
export class SocketHolder {
  reconnects = 0;
  private constructor(
    private readonly gatewayUrl: string,
    private readonly token: string,
    public current: FuzzSocket,
  ) {}

  static async open(gatewayUrl: string, token: string): Promise<SocketHolder> {
    return new SocketHolder(gatewayUrl, token, await FuzzSocket.connect(gatewayUrl, token));
  }

  async exchange(frame: string | Buffer, binary = false): Promise<SocketOutcome> {
    if (!this.current.isOpen) {
      this.current = await FuzzSocket.connect(this.gatewayUrl, this.token);
      this.reconnects += 1;
    }
    return this.current.exchange(frame, binary);
  }
}

function socketResult(outcome: SocketOutcome, expected: readonly string[]): CaseResult {
  const code = outcome.kind === "answer" ? outcome.envelope.error?.code : undefined;
  return {
    outcome:
      outcome.kind === "answer"
        ? String(code ?? "ok")
        : outcome.kind === "closed"
          ? `closed ${outcome.code}`
          : "no answer",
    violation: socketViolation(outcome, expected),
    answer: outcome.kind === "answer" ? excerpt(JSON.stringify(outcome.envelope)) : outcome.kind,
    serverFault: outcome.kind !== "answer" || (code ?? 0) >= 500,
  };
}

/** Every place of an action's payload. */
export function fuzzAction(
  ctx: FuzzContext,
  socket: SocketHolder,
  action: MessageAction,
  budget: FuzzBudget,
): Promise<number> {
  const where = { surface: "ws", operation: action, prefix: "payload:" } as const;
  let messages = 0;
  return fuzzPlaces(ctx, budget, where, payloadTargets(action, ctx.world), async (pointer, hostile) => {
    messages += 1;
    const message = actionMessage(action, ctx.world, pointer, hostile, `fz-${messages}`);
    return socketResult(await socket.exchange(message), [responseAction(action)]);
  });
}

/** Frames that are not a message at all, each sent once. */
const RAW_FRAMES: ReadonlyArray<{ label: string; frame: string | Buffer; binary: boolean }> = [
  { label: "empty text", frame: "", binary: false },
  { label: "not JSON", frame: "hello", binary: false },
  { label: "truncated JSON", frame: '{"action":"getPlayers"', binary: false },
  { label: "binary", frame: Buffer.from([0xff, 0x00, 0xfe]), binary: true },
  {
    label: "JSON text with a raw NUL",
    frame: '{"action":"getPlayers","messageId":"n\u0000"}',
    binary: false,
  },
  { label: "nested 100 deep", frame: `${"[".repeat(100)}${"]".repeat(100)}`, binary: false },
  {
    label: "a 300 KB frame (over WS_MAX_MESSAGE_BYTES)",
    frame: `"${"a".repeat(3 * LONG_STRING_LENGTH)}"`,
    binary: false,
  },
  // Last: RFC 6455 closes the connection on a text frame that is not UTF-8.
  { label: "text frame of invalid UTF-8", frame: Buffer.from([0x7b, 0xff, 0x7d]), binary: false },
];

/**
 * The envelope itself: hostile values in `action`, `messageId`, `payload` and in place of the whole
 * message (of a valid getPlayers message), then frames that are no message.
 */
export async function fuzzEnvelope(
  ctx: FuzzContext,
  socket: SocketHolder,
  budget: FuzzBudget,
): Promise<number> {
  const message = { action: "getPlayers", messageId: "envelope", payload: { gameId: ctx.world.gameId } };
  const expected = [responseAction("getPlayers"), UNREADABLE_ACTION_RESPONSE];
  const where = { surface: "ws", operation: "envelope", prefix: "message:" } as const;
  const sent = await fuzzPlaces(
    ctx,
    budget,
    where,
    bodyPointers(undefined, message),
    async (pointer, hostile) =>
      socketResult(await socket.exchange(toJsonText(withValueAt(message, pointer, hostile.value))), expected),
  );
  for (const { label, frame, binary } of RAW_FRAMES) {
    const key: FuzzCaseKey = {
      surface: "ws",
      operation: "envelope",
      target: "frame",
      kind: "frame",
      input: label,
    };
    await keepResult(ctx, key, socketResult(await socket.exchange(frame, binary), expected));
  }
  return sent + RAW_FRAMES.length;
}
