/**
 * elyra-assistant/redis: the store several proxy instances share (rate limits
 * and usage), over ioredis.
 *
 * @packageDocumentation
 */

export type { RedisStore, RedisStoreOptions } from "./adapters/store/redisStore.ts";
export { redisStore } from "./adapters/store/redisStore.ts";
