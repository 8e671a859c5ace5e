/**
 * elyra-assistant/redis: the store several proxy instances share (rate limits
 * and usage), over ioredis.
 *
 * @packageDocumentation
 */

export type { RedisClient } from "./adapters/store/redis/client.ts";
export type { RedisStore, RedisStoreOptions } from "./adapters/store/redis/store.ts";
export { redisStore } from "./adapters/store/redis/store.ts";
