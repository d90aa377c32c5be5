import { writeFileSync } from "node:fs";
import { messagePayloadValidators, validatorFor } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { initiateAuth, newTenant, provisionTenant, type TenantCredentials } from "../src/clients.js";
import { FUZZED_ACTIONS, FUZZED_OPERATIONS, validBody, validPayload } from "../src/fuzz-cases.js";
import { type Finding, isKnown, type KnownFailure, summarize } from "../src/fuzz-findings.js";
import {
  type FuzzBudget,
  type FuzzContext,
  fuzzAction,
  fuzzEnvelope,
  fuzzRestOperation,
  SocketHolder,
} from "../src/fuzz-runner.js";
import { FuzzSocket } from "../src/fuzz-transport.js";
import { FuzzTenantWorld } from "../src/fuzz-world.js";
import { type Platform, startPlatform } from "../src/platform.js";
import { PlatformGuard } from "../src/platform-guard.js";
import {
  type FlowStep,
  healthOf,
  REFERENCE_PLAYERS,
  REFERENCE_PUSH_GAME,
  REFERENCE_REST_GAME,
  referenceFlow,
} from "../src/reference-flow.js";

/**
 * Hostile input against the whole platform, generated from the action table: every hosted
 * operation over REST through the gateway, every WebSocket action over one WebSocket, with NUL,
 * lone surrogates, 100 KB strings, extreme numbers and arbitrary JSON in every path parameter,
 * query parameter and body field. Every answer must be a 2xx or a 4xx problem with a code (over
 * the WebSocket: the action's answer, or an error answer with a 4xx code; a documented close).
 * Afterwards another tenant's reference flow must answer exactly as it did on a fresh tenant
 * before the fuzzing, and every app must still be live and ready.
 *
 * FUZZ_SEED replays a run (the report at the end names it); FUZZ_RUNS (random runs per operation
 * and action, after the matrix) and FUZZ_TIME_MS (the random runs' time budget, shared by all)
 * bound it; FUZZ_FINDINGS_FILE writes every finding and outcome count as JSON; FUZZ_TRACE=<operationId or
 * action> prints each of its cases with its answer.
 */

/**
 * Findings of today's code, skipped by the assertions below until their fixes land. Remove each
 * entry as its fix is merged (the suite prints the entries that matched nothing in its run): a
 * finding that no entry explains fails the suite. A `withheld` entry is not even sent, since it
 * takes stats down for every tenant and would stop the rest of the run.
 */
const KNOWN_FAILURES_PENDING_FIXES: readonly KnownFailure[] = [];

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 30_000);
/** Beyond the random runs' budget: the matrix and the world's matches (about 20 s on a quiet machine). */
const MATRIX_ALLOWANCE_MS = 90_000;
/** REST gets the larger share: it has twice the operations of the WebSocket. */
const REST_SHARE = 0.6;

let platform: Platform;
const findings: Finding[] = [];
let baseline: { flow: FlowStep[]; health: FlowStep[] };
let victim: TenantCredentials;
let ctx: FuzzContext;
let socket: SocketHolder;
/** A victim connection subscribed to the fuzzed games during the fuzzing: it must receive nothing. */
let victimWatcher: FuzzSocket;
const sent = { rest: 0, ws: 0 };

beforeAll(async () => {
  platform = await startPlatform({
    matchmakingIntervalMs: 200,
    // The fuzzer is one tenant sending as fast as it can; its requests must reach stats.
    // A hung stats shows within 5 s instead of the default 10 (the guard then restarts it).
    // Its raw frames close the socket (1008) on purpose and it reconnects at once to go on: the
    // reconnect cooldown after such a close (tested in the gateway's own suite) is off here.
    env: {
      gateway: { TENANT_RATE_LIMIT: "1000000", UPSTREAM_TIMEOUT_MS: "5000", WS_MALFORMED_COOLDOWN_MS: "0" },
    },
  });
}, 120_000);

afterAll(async () => {
  await socket?.current.close();
  await victimWatcher?.close();
  console.log(report());
  if (process.env.FUZZ_FINDINGS_FILE) {
    const outcomes = Object.fromEntries(
      [...(ctx?.outcomes ?? [])].map(([op, c]) => [op, Object.fromEntries(c)]),
    );
    const file = { seed: SEED, sent, findings, outcomes, baseline };
    writeFileSync(process.env.FUZZ_FINDINGS_FILE, JSON.stringify(file, null, 2));
  }
  await platform?.close();
});

/** What the run did and found, printed at its end (the seed replays it): one line per known failure. */
function report(): string {
  const lines = [
    `Fuzzing with seed ${SEED}: ${sent.rest} REST requests, ${sent.ws} WebSocket frames, ` +
      `${ctx?.withheld ?? 0} cases withheld, ${findings.length} findings.`,
  ];
  for (const k of KNOWN_FAILURES_PENDING_FIXES) {
    const explained = findings.filter((f) => isKnown(f, KNOWN_FAILURES_PENDING_FIXES) === k).length;
    const state = k.withheld ? "withheld" : explained > 0 ? `×${explained}` : "not seen (fixed?)";
    lines.push(`  known, ${state}: ${k.finding}`);
  }
  const unexplainedLines = summarize(findings.filter((f) => !isKnown(f, KNOWN_FAILURES_PENDING_FIXES)));
  if (unexplainedLines.length > 0) lines.push("Unexplained:", ...unexplainedLines);
  return lines.join("\n");
}

/** The findings no known failure explains, as readable lines for the assertion message. */
function unexplained(surface: Finding["surface"]): string[] {
  return summarize(
    findings.filter((f) => f.surface === surface && !isKnown(f, KNOWN_FAILURES_PENDING_FIXES)),
  );
}

/** One part's budget; each part draws from a seed of its own, derived from the run's. */
function budgetOf(share: number, parts: number, part: number): FuzzBudget {
  return { seed: SEED + part, runs: RUNS, timeMs: Math.floor((TIME_MS * share) / parts) };
}

describe("hostile input, generated from the action table", () => {
  it("starts from valid requests: every example body and payload passes its schema", () => {
    const world = {
      gameId: "g",
      matchId: "3f1b1c8e-0d6a-4d2e-9a51-0b5a8c9d7e6f",
      matchPlayers: ["a", "b"] as const,
      waitingPlayerId: "w",
      backfillMatchId: "3f1b1c8e-0d6a-4d2e-9a51-0b5a8c9d7e70",
      backfillingRequestId: "bf",
      freshPlayerId: () => "p",
    };
    for (const op of FUZZED_OPERATIONS) {
      if (op.body === undefined) continue;
      const validate = validatorFor(op.body);
      expect({
        op: op.operationId,
        valid: validate(validBody(op.body, world)),
        errors: validate.errors,
      }).toEqual({
        op: op.operationId,
        valid: true,
        errors: null,
      });
    }
    for (const action of FUZZED_ACTIONS) {
      const validate = messagePayloadValidators[action];
      expect({ action, valid: validate(validPayload(action, world)), errors: validate.errors }).toEqual({
        action,
        valid: true,
        errors: null,
      });
    }
  });

  it("records the reference flow on a fresh tenant, and sets up the fuzzing and victim tenants", async () => {
    baseline = {
      flow: await referenceFlow(platform.gateway.url, await provisionTenant(platform)),
      health: await healthOf(platform),
    };
    expect(baseline.flow.find((s) => s.step === "complete by REST")?.status).toBe(200);

    victim = await provisionTenant(platform);
    const victimToken = (await initiateAuth(platform.gateway.url, victim)).body.AuthenticationResult.IdToken;
    victimWatcher = await FuzzSocket.connect(platform.gateway.url, victimToken);
    const watching = await victimWatcher.exchange(
      JSON.stringify({
        action: "subscribe",
        messageId: "w",
        payload: { gameIds: [REFERENCE_PUSH_GAME, REFERENCE_REST_GAME] },
      }),
    );
    expect(watching).toMatchObject({ kind: "answer", envelope: { action: "subscribeResponse" } });

    const { rest, token } = await newTenant(platform);
    socket = await SocketHolder.open(platform.gateway.url, token);
    const world = new FuzzTenantWorld(rest, REFERENCE_PUSH_GAME, () => socket.current.pushes);
    // The first match holds the reference flow's player ids: a leak between tenants would show there.
    await world.refresh(REFERENCE_PLAYERS.push);
    ctx = {
      gatewayUrl: platform.gateway.url,
      token,
      world,
      findings,
      known: KNOWN_FAILURES_PENDING_FIXES,
      guard: new PlatformGuard(platform),
      withheld: 0,
      outcomes: new Map(),
      trace: process.env.FUZZ_TRACE,
    };
  });

  it(
    "REST: every hosted operation answers a 2xx or a 4xx problem",
    async () => {
      for (const [i, op] of FUZZED_OPERATIONS.entries()) {
        sent.rest += await fuzzRestOperation(ctx, op, budgetOf(REST_SHARE, FUZZED_OPERATIONS.length, i));
      }
      expect(unexplained("rest")).toEqual([]);
    },
    TIME_MS * REST_SHARE + MATRIX_ALLOWANCE_MS,
  );

  it(
    "WebSocket: every action is answered with its response or a 4xx error",
    async () => {
      const parts = FUZZED_ACTIONS.length + 1;
      for (const [i, action] of FUZZED_ACTIONS.entries()) {
        sent.ws += await fuzzAction(ctx, socket, action, budgetOf(1 - REST_SHARE, parts, i));
      }
      sent.ws += await fuzzEnvelope(ctx, socket, budgetOf(1 - REST_SHARE, parts, FUZZED_ACTIONS.length));
      expect(unexplained("ws")).toEqual([]);
    },
    TIME_MS * (1 - REST_SHARE) + MATRIX_ALLOWANCE_MS,
  );

  it("afterwards, another tenant's reference flow answers as on a fresh platform, and every app is live and ready", async () => {
    expect(await healthOf(platform)).toEqual(baseline.health);
    // The victim's games have the fuzzed games' ids; none of the fuzzing tenant's pushes reach it.
    expect(victimWatcher.pushes.filter((p) => p.action !== "keepAlive")).toEqual([]);
    expect(victimWatcher.isOpen).toBe(true);
    await victimWatcher.close();
    expect(await referenceFlow(platform.gateway.url, victim)).toEqual(baseline.flow);
  });
});
