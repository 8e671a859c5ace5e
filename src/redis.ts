/**
 * elyra-assistant/redis: the store several proxy instances share (rate limits
 * and usage), over ioredis.
 *
 * @packageDocumentation
 */

export type {
  RedisStore,
  RedisStoreOptions,
  UsageCounts,
  UsageStore,
  UsageTotals,
} from "./adapters/store/redisStore.ts";
export { redisStore } from "./adapters/store/redisStore.ts";
