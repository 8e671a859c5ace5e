/**
 * The shared store for several proxy instances: rate limits as an exact
 * sliding log per key in a Redis sorted set, usage as a hash per key, money
 * as a hash per key and budget period (spend.ts), through ioredis.
 */
import { randomBytes } from "node:crypto";
import type { RateDecision, RateLimit, RateLimitStore } from "../../../runtime/calls/rateLimit.ts";
import type {
  SpendAsk,
  SpendGrant,
  SpendPeriod,
  SpendSettled,
  SpendSettlement,
  SpendTotals,
  UsageCounts,
  UsageStore,
  UsageTotals,
} from "../../../runtime/ports/usageStore.ts";
import type { RedisClient as Redis } from "./client.ts";
import { ioredis } from "./ioredis.ts";
import { script } from "./script.ts";
import { redisSpend } from "./spend.ts";

/** How a {@link redisStore} names its keys. */
export interface RedisStoreOptions {
  /** Put before every key this store writes (default `"elyra:"`), so several apps can share one Redis. */
  readonly prefix?: string;
}

/** A {@link RateLimitStore} and a {@link UsageStore} (tokens and money) in one Redis; `close` quits a client the store opened. */
export interface RedisStore extends RateLimitStore, UsageStore {
  readonly take: (key: string, limit: RateLimit, now: number) => Promise<RateDecision>;
  readonly add: (key: string, usage: UsageCounts) => Promise<void>;
  readonly read: (key: string) => Promise<UsageTotals>;
  readonly reserve: (key: string, ask: SpendAsk) => Promise<SpendGrant>;
  readonly settle: (key: string, settlement: SpendSettlement) => Promise<SpendSettled>;
  readonly spend: (key: string, period: SpendPeriod) => Promise<SpendTotals>;
  readonly close: () => Promise<void>;
}

// KEYS[1] the log; ARGV: now, the cutoff (now − window, computed in JS so no
// float goes through Lua's 14-digit tostring), calls, this take's member, the
// expiry in ms. Returns "" when taken, else the score of the entry whose
// expiry frees the next place.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local calls = tonumber(ARGV[3])
local count = redis.call('ZCARD', KEYS[1])
if count >= calls then
  local oldest = redis.call('ZRANGE', KEYS[1], count - calls, count - calls, 'WITHSCORES')
  return oldest[2] or ARGV[1]
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return ''
`;

// KEYS[1] the hash; ARGV: input tokens, output tokens. One script, so a read never sees half an add.
const ADD = `
redis.call('HINCRBY', KEYS[1], 'inputTokens', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'outputTokens', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'requests', 1)
return 1
`;

const takeScript = script(TAKE);
const addScript = script(ADD);

const count = (value: unknown): number => (value == null ? 0 : Number(value));

/** A client of its own for the store, at `url`. */
const connect = (url: string): Redis => {
  const client = new ioredis.Redis(url, { maxRetriesPerRequest: 1 });
  // Failures reach the caller as rejected commands; without a listener ioredis would also log each one.
  client.on("error", () => {});
  return client;
};

/**
 * A {@link RateLimitStore} and {@link UsageStore} over Redis, for proxy
 * instances that must hold one user's limit together.
 *
 * `take` is one Lua script, so it is atomic per key across every client of
 * the server: entries older than the window go, the rest are counted, and the
 * call is added when there is room; the key expires a window after its newest
 * entry. Time is the caller's `now`, not the server's, so a simulated clock
 * drives it in tests (instances should keep their clocks in sync). A Redis
 * error rejects the promise, so the call path refuses the call.
 *
 * `reserve` and `settle` are Lua scripts too, so instances sharing the store
 * hold one user's money budget together: a reservation is granted only while
 * the period's spent + reserved stays within the budget. A period's hash
 * expires two periods after its last write.
 *
 * Given a URL, the store opens its own client, which gives up on a command
 * after one reconnection attempt, and `close` quits it. Given a client, the
 * client's own `maxRetriesPerRequest` decides how long a take waits out a
 * dead server (ioredis' default is 20 reconnection attempts), and `close`
 * leaves it open.
 *
 * @example
 * ```ts
 * const store = redisStore("redis://127.0.0.1:6379", { prefix: "crm:" });
 * await store.take("user-7:messages", { calls: 20, perSeconds: 60 }, Date.now());
 * await store.add("user-7", { inputTokens: 1200, outputTokens: 300 });
 * await store.read("user-7"); // { inputTokens: 1200, outputTokens: 300, requests: 1 }
 * const period = { start: 0, ms: 86_400_000 };
 * await store.reserve("user-7", { period, budget: 5, want: 0.2, least: 0.01 }); // { _tag: "Reserved", dollars: 0.2, … }
 * await store.settle("user-7", { period, reserved: 0.2, dollars: 0.05 }); // { spent: 0.05, reserved: 0, crossed: [] }
 * await store.close();
 * ```
 */
export const redisStore = (redis: Redis | string, options: RedisStoreOptions = {}): RedisStore => {
  const owned = typeof redis === "string";
  const client = typeof redis === "string" ? connect(redis) : redis;
  const prefix = options.prefix ?? "elyra:";
  // Members must be unique across instances and within a millisecond.
  const instance = randomBytes(6).toString("base64url");
  let taken = 0;
  return {
    take: async (key, limit, now) => {
      const windowMs = limit.perSeconds * 1000;
      const oldest = await takeScript(client, `${prefix}rate:${key}`, [
        String(now),
        String(now - windowMs),
        String(limit.calls),
        `${now}:${instance}:${taken++}`,
        String(Math.max(1, Math.ceil(windowMs))),
      ]);
      if (oldest === "" || oldest == null) return { _tag: "Allowed" };
      return { _tag: "Limited", retryAfterMs: Math.max(1, Number(oldest) + windowMs - now) };
    },
    add: async (key, usage) => {
      await addScript(client, `${prefix}usage:${key}`, [
        String(usage.inputTokens),
        String(usage.outputTokens),
      ]);
    },
    read: async (key) => {
      const [inputTokens, outputTokens, requests] = await client.hmget(
        `${prefix}usage:${key}`,
        "inputTokens",
        "outputTokens",
        "requests",
      );
      return {
        inputTokens: count(inputTokens),
        outputTokens: count(outputTokens),
        requests: count(requests),
      };
    },
    ...redisSpend(client, prefix),
    close: async () => {
      if (!owned) return;
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
};
