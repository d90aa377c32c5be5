import { isCluster, type Redis } from "./redis-client.js";

/**
 * Pub/sub for the platform's channels. On one server: PUBLISH/SUBSCRIBE. On a cluster: sharded
 * pub/sub (SPUBLISH/SSUBSCRIBE, Redis 7), so a message goes to the shard that owns its channel's
 * slot instead of being copied to every node over the cluster bus; ioredis keeps one subscriber
 * connection per master and subscribes again after a failover moves a slot.
 */

/** Subscribes to the channels on a connection of their own; resolves with the function that stops. */
export async function listenOn(
  redis: Redis,
  channels: readonly string[],
  onMessage: (channel: string, text: string) => void,
): Promise<() => Promise<void>> {
  // ioredis subscribes again by itself after a reconnect: it may queue while disconnected.
  const subscriber = isCluster(redis)
    ? redis.duplicate(undefined, {
        enableOfflineQueue: true,
        redisOptions: { ...redis.options.redisOptions, maxRetriesPerRequest: null },
      })
    : redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on("error", () => {});
  if (isCluster(subscriber)) {
    subscriber.on("smessage", onMessage);
    // One SSUBSCRIBE per channel: channels of different slots live on different shards.
    for (const channel of channels) await subscriber.ssubscribe(channel);
  } else {
    subscriber.on("message", onMessage);
    await subscriber.subscribe(...channels);
  }
  return async () => {
    if (subscriber.status === "end") return;
    await subscriber.quit().catch(() => subscriber.disconnect());
  };
}

/** Publishes one message. */
export async function publishOn(redis: Redis, channel: string, text: string): Promise<void> {
  if (isCluster(redis)) await redis.spublish(channel, text);
  else await redis.publish(channel, text);
}

/**
 * Publishes many messages in as few round trips as the deployment allows: one pipeline on one
 * server; on a cluster one pipeline per channel (a cluster pipeline must stay in one slot), sent
 * at once. Rejects with the first failure.
 */
export async function publishMany(
  redis: Redis,
  messages: ReadonlyArray<{ channel: string; text: string }>,
): Promise<void> {
  if (messages.length === 0) return;
  const cluster = isCluster(redis);
  const groups = new Map<string, Array<{ channel: string; text: string }>>();
  for (const message of messages) {
    const group = cluster ? message.channel : "";
    const list = groups.get(group);
    if (list) list.push(message);
    else groups.set(group, [message]);
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const pipeline = redis.pipeline();
      for (const { channel, text } of group) {
        if (cluster) pipeline.spublish(channel, text);
        else pipeline.publish(channel, text);
      }
      const results = await pipeline.exec();
      const failed = results?.find(([err]) => err);
      if (failed) throw failed[0];
    }),
  );
}
