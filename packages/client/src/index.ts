// The SDK's public surface. Everything a game server imports comes from here.
export type { AccessTokens } from "./access-tokens.js";
export type {
  CallEvent,
  ClientHooks,
  ClientLogger,
  ClientMetrics,
  PushEvent,
  ReconnectEvent,
  RetryEvent,
} from "./hooks.js";
