/**
 * What stats needs from the push fan-out (`PushFanout` of `@arena/redis`, shared with the
 * gateway): offer messages to subscribed connections of a tenant's game, one connection each, or
 * send one to all of them. Kept to these calls so the lifecycle code does not depend on how the
 * gateway holds its connections.
 */
export interface Pusher {
  /** Per message, the connection it went to, or null when no subscribed connection could take it. */
  offerMany(
    tenantId: string,
    gameId: string,
    messages: readonly object[],
    exclude?: readonly string[],
  ): Promise<Array<string | null>>;
  /** Whether any connection is subscribed to the game (a cheap hint; `offerMany` decides). */
  hasSubscribers(tenantId: string, gameId: string): Promise<boolean>;
  broadcast(tenantId: string, gameId: string, message: object): Promise<void>;
}

/** No fan-out (tests of the REST flow, or Redis not reachable): nothing is pushed. */
export const noPusher: Pusher = {
  offerMany: async (_t, _g, messages) => messages.map(() => null),
  hasSubscribers: async () => false,
  broadcast: async () => {},
};
