import { randomUUID } from "node:crypto";
import type { AccessTokens } from "./access-tokens.js";
import { OPERATIONS, type OperationId, type OperationTypes } from "./generated/operations.js";
import { type CallOptions, HttpClient } from "./http/http-client.js";
import { DEFAULT_RETRY, type RetryOptions } from "./http/retry-policy.js";
import { CognitoTokens, type CognitoTokensOptions } from "./login/cognito-tokens.js";

/** The login's options (the gateway's URL, the app client, the user, the flow) and the calls' own. */
export interface ArenaClientOptions extends CognitoTokensOptions {
  /** Each call's deadline, all retries included (default 30 000 ms); a call may pass its own. */
  deadlineMs?: number;
  retry?: Partial<RetryOptions>;
}

/** One async method per hosted operation: `client.addPlayers({ gameId, body }, { deadlineMs })`. */
export type ArenaOperations = {
  [Id in OperationId]: Record<string, never> extends OperationTypes[Id]["input"]
    ? (input?: OperationTypes[Id]["input"], options?: CallOptions) => Promise<OperationTypes[Id]["answer"]>
    : (input: OperationTypes[Id]["input"], options?: CallOptions) => Promise<OperationTypes[Id]["answer"]>;
};

export type ArenaClient = ArenaOperations & { readonly tokens: AccessTokens };

export const DEFAULT_DEADLINE_MS = 30_000;

/**
 * Makes retries safe where the API lets the client say so: a backfill request gets a
 * client-chosen `backfillingRequestId` (unless the caller gave one), so a repeat after a lost
 * answer is recognised as the same request instead of starting a second search.
 */
function retrySafeInput(operationId: OperationId, input: Record<string, unknown>): Record<string, unknown> {
  if (operationId !== "requestBackfill") return input;
  const body = (input.body ?? {}) as Record<string, unknown>;
  if (body.backfillingRequestId !== undefined) return input;
  return { ...input, body: { ...body, backfillingRequestId: randomUUID() } };
}

/** The SDK's entry point: logs in on the first call and keeps the token fresh by itself. */
export function createArenaClient(options: ArenaClientOptions): ArenaClient {
  const tokens = new CognitoTokens(options);
  const http = new HttpClient({
    baseUrl: options.baseUrl,
    tokens,
    hooks: options.hooks,
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
    retry: { ...DEFAULT_RETRY, ...options.retry },
  });
  const client: Record<string, unknown> = { tokens };
  for (const operationId of Object.keys(OPERATIONS) as OperationId[]) {
    client[operationId] = (input: Record<string, unknown> = {}, callOptions?: CallOptions) =>
      http.call(operationId, retrySafeInput(operationId, input), callOptions);
  }
  return client as ArenaClient;
}
