import type { PushTarget } from "@arena/redis";

export type { PushTarget };

/**
 * What stats needs from the push fan-out (`PushFanout` of `@arena/redis`, shared with the
 * gateway). A push is placed in two steps so stats can record who gets a suggestion before the
 * game server can act on it: `choose` a connection for each of a batch of pushes, then `send`
 * them. Kept to these calls so the lifecycle code does not depend on how the gateway holds its
 * connections.
 */
export interface Pusher {
  /** Per push, the subscribed connection that takes it, or null where none can (counted, not sent). */
  choose(
    tenantId: string,
    gameId: string,
    pushes: number,
    exclude?: readonly string[],
  ): Promise<Array<PushTarget | null>>;
  send(
    tenantId: string,
    gameId: string,
    deliveries: ReadonlyArray<{ target: PushTarget; message: object }>,
  ): Promise<void>;
  /** `choose` then `send`, for pushes nothing needs recording for (backfill suggestions). */
  offerMany(
    tenantId: string,
    gameId: string,
    messages: readonly object[],
    exclude?: readonly string[],
  ): Promise<Array<string | null>>;
  /** Of these connections, the ones no longer registered (closed, or their replica died). */
  gone(tenantId: string, connectionIds: readonly string[]): Promise<string[]>;
  /** Whether any connection is subscribed to the game (a cheap hint; `choose` decides). */
  hasSubscribers(tenantId: string, gameId: string): Promise<boolean>;
  broadcast(tenantId: string, gameId: string, message: object): Promise<void>;
}

/** No fan-out (tests of the REST flow, or Redis not reachable): nothing is pushed. */
export const noPusher: Pusher = {
  choose: async (_t, _g, pushes) => Array.from({ length: pushes }, () => null),
  send: async () => {},
  offerMany: async (_t, _g, messages) => messages.map(() => null),
  gone: async () => [],
  hasSubscribers: async () => false,
  broadcast: async () => {},
};
