// The WebSocket half of the SDK: its public names (src/index.ts re-exports them).
export { RealtimeError } from "./errors.js";
export type {
  RealtimeClientOptions,
  RealtimeConnectedEvent,
  RealtimeDisconnectedEvent,
  RealtimeEventName,
  RealtimeEvents,
} from "./realtime-client.js";
export { RealtimeClient } from "./realtime-client.js";
export type {
  BackfillingMatchSuggestionPayload,
  MatchSuggestionPayload,
  PlayersRemovedPayload,
  RealtimeMatchPlayer,
  RealtimeSubscription,
} from "./types.js";
