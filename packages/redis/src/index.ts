export { listenOn, publishMany, publishOn } from "./pubsub.js";
export {
  type FanoutBroadcast,
  type FanoutDelivery,
  PushFanout,
  type PushFanoutHandlers,
  type PushFanoutOptions,
  type PushSubscription,
  type PushTarget,
} from "./push-fanout.js";
export {
  type CreateRedisOptions,
  closeRedis,
  clusterSeeds,
  createRedis,
  DEFAULT_REDIS_URL,
  isCluster,
  type Redis,
  type RedisConnection,
  redisConfigProperties,
  redisReadiness,
} from "./redis-client.js";
export { type RedisKeys, redisKeys } from "./redis-keys.js";
export { RedisScript, type RedisScriptDefinition, redisScript, registeredScripts } from "./redis-script.js";
