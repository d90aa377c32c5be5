// The SDK's public surface. Everything a game server imports comes from here.
export type { AccessTokens } from "./access-tokens.js";
export {
  type ArenaClient,
  type ArenaClientOptions,
  type ArenaOperations,
  createArenaClient,
  DEFAULT_DEADLINE_MS,
} from "./client.js";
export { ArenaApiError, DeadlineError, type FieldProblem, LoginError, NetworkError } from "./errors.js";
export type * from "./generated/operations.js";
export { ERROR_CODES, OPERATIONS } from "./generated/operations.js";
export type {
  CallEvent,
  ClientHooks,
  ClientLogger,
  ClientMetrics,
  PushEvent,
  ReconnectEvent,
  RetryEvent,
} from "./hooks.js";
export type { CallOptions } from "./http/http-client.js";
export { REPEATABLE } from "./http/repeatable.js";
export { DEFAULT_RETRY, type RetryOptions } from "./http/retry-policy.js";
export { CognitoTokens, type CognitoTokensOptions, type LoginFlow } from "./login/cognito-tokens.js";
export * from "./realtime/index.js";
