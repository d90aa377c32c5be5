/**
 * What stats needs from the push fan-out (`PushFanout` of `@arena/redis`, shared with the
 * gateway): offer a message to one subscribed connection of a tenant's game, or send it to all
 * of them. Kept to these two calls so the lifecycle code does not depend on how the gateway
 * holds its connections.
 */
export interface Pusher {
  /** The connection the message went to, or null when no subscribed connection can take it. */
  offer(
    tenantId: string,
    gameId: string,
    message: object,
    exclude?: readonly string[],
  ): Promise<string | null>;
  broadcast(tenantId: string, gameId: string, message: object): Promise<void>;
}

/** No fan-out (tests of the REST flow, or Redis not reachable): nothing is pushed. */
export const noPusher: Pusher = {
  offer: async () => null,
  broadcast: async () => {},
};
