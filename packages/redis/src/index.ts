export type { Redis } from "ioredis";
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
  createRedis,
  DEFAULT_REDIS_URL,
  redisConfigProperties,
  redisReadiness,
} from "./redis-client.js";
export { type RedisKeys, redisKeys } from "./redis-keys.js";
export { createTestRedis, type TestRedis } from "./test-redis.js";
