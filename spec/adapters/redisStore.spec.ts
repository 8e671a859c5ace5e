/**
 * redisStore against a real redis-server on loopback: the memory store's
 * contract (exact limit, exact wait, the window sliding), two clients holding
 * one limit together, the same decisions as memoryRateLimitStore on random
 * arrivals, usage, and failing closed when Redis is gone.
 */
import {
  createApp,
  createCallPath,
  memoryRateLimitStore,
  memoryUsageStore,
  type RateLimit,
} from "elyra-assistant";
import { createProxy } from "elyra-assistant/proxy";
import { redisStore } from "elyra-assistant/redis";
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spyCommands } from "../fixtures/spyCommands.ts";
import { runs, timeoutFor } from "../properties/runs.ts";
import { freePort, haveRedis, type RedisServer, redisSuite, startRedis } from "./redisServer.ts";

// Each run talks to Redis (one round trip per take), so fewer runs than the
// memory store's 1 000; 200 runs of up to 60 takes stay around a second.
const NUM_RUNS = 200;

const limit = fc.record({
  calls: fc.integer({ min: 1, max: 5 }),
  perSeconds: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 120 })),
});

describe.skipIf(!haveRedis)(redisSuite("redisStore"), () => {
  let server: RedisServer;
  /** Clients the specs opened themselves, quit at the end. */
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis(server.url);
    clients.push(c);
    return c;
  };
  let prefixes = 0;
  /** A prefix no other spec uses, so specs share one server without FLUSHDB. */
  const fresh = () => `spec${prefixes++}:`;

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    await server?.stop();
  });

  describe("rate limits: the memory store's contract", () => {
    it("accepts exactly `calls` in a window, names the exact wait, and the window slides", async () => {
      const store = redisStore(server.url, { prefix: fresh() });
      const l: RateLimit = { calls: 3, perSeconds: 60 };
      expect(await store.take("k", l, 0)).toEqual({ _tag: "Allowed" });
      expect(await store.take("k", l, 1_000)).toEqual({ _tag: "Allowed" });
      expect(await store.take("k", l, 2_000)).toEqual({ _tag: "Allowed" });
      expect(await store.take("k", l, 3_000)).toEqual({ _tag: "Limited", retryAfterMs: 57_000 });
      expect(await store.take("k", l, 59_999)).toEqual({ _tag: "Limited", retryAfterMs: 1 });
      // The call at 0 leaves the window at 60 000 exactly.
      expect(await store.take("k", l, 60_000)).toEqual({ _tag: "Allowed" });
      expect(await store.take("k", l, 60_500)).toEqual({ _tag: "Limited", retryAfterMs: 500 });
      expect(await store.take("k", l, 61_000)).toEqual({ _tag: "Allowed" });
      await store.close();
    });

    it("keeps keys and prefixes apart, and a log expires a window after its newest call", async () => {
      const prefix = fresh();
      const store = redisStore(server.url, { prefix });
      const other = redisStore(server.url, { prefix: fresh() });
      const l: RateLimit = { calls: 1, perSeconds: 30 };
      expect(await store.take("a", l, 0)).toEqual({ _tag: "Allowed" });
      expect(await store.take("b", l, 0)).toEqual({ _tag: "Allowed" });
      expect(await other.take("a", l, 0)).toEqual({ _tag: "Allowed" });
      expect(await store.take("a", l, 10)).toEqual({ _tag: "Limited", retryAfterMs: 29_990 });
      const ttl = await client().pttl(`${prefix}rate:a`);
      expect(ttl).toBeGreaterThan(29_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
      await Promise.all([store.close(), other.close()]);
    });

    it("on random arrivals, decides exactly as memoryRateLimitStore, waits included", {
      timeout: timeoutFor(),
    }, async () => {
      const redis = client();
      await fc.assert(
        fc.asyncProperty(
          limit,
          // Epoch-sized and fractional times too: the scores must survive Redis and Lua exactly.
          fc.oneof(
            fc.constant(0),
            fc.integer({ min: 0, max: 2_000_000_000_000 }),
            fc.double({ min: 0, max: 2e12, noNaN: true }),
          ),
          fc.array(
            fc.record({
              // Quarter seconds and "wait what the last refusal said (or 1 ms less)" land on
              // the window's edges, where an off-by-one would show.
              gap: fc.oneof(
                fc.integer({ min: 0, max: 30_000 }),
                fc.integer({ min: 0, max: 8 }).map((n) => n * 250),
                fc.double({ min: 0, max: 30_000, noNaN: true }),
                fc.constantFrom("told" as const, "told - 1" as const),
              ),
              key: fc.constantFrom("w1:a", "w1:b", "w2:a"),
            }),
            { maxLength: 60 },
          ),
          async (l, start, arrivals) => {
            const store = redisStore(redis, { prefix: fresh() });
            const memory = memoryRateLimitStore();
            let now = start;
            let told = 0;
            for (const { gap, key } of arrivals) {
              now += gap === "told" ? told : gap === "told - 1" ? Math.max(0, told - 1) : gap;
              const expected = memory.take(key, l, now);
              if (expected instanceof Promise) throw new Error("the memory store is synchronous");
              expect(await store.take(key, l, now)).toEqual(expected);
              if (expected._tag === "Limited") told = expected.retryAfterMs;
            }
          },
        ),
        { numRuns: runs(NUM_RUNS) },
      );
    });
  });

  describe("two proxy instances sharing the Redis store hold one user's limit together", () => {
    it("many concurrent takes on one key from two clients: exactly `calls` pass", async () => {
      for (const calls of [1, 7, 50]) {
        const prefix = fresh();
        const first = redisStore(client(), { prefix });
        const second = redisStore(client(), { prefix });
        const l: RateLimit = { calls, perSeconds: 60 };
        const decisions = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 2 === 0 ? first : second).take("user-7:messages", l, 1_000 + (i % 10)),
          ),
        );
        expect(decisions.filter((d) => d._tag === "Allowed")).toHaveLength(calls);
        for (const d of decisions)
          if (d._tag === "Limited") expect(d.retryAfterMs).toBeGreaterThanOrEqual(59_991);
        expect(await client().zcard(`${prefix}rate:user-7:messages`)).toBe(calls);
      }
    });

    it("through two call paths on one simulated clock: the tool runs `calls` times in all", async () => {
      const prefix = fresh();
      const spies = spyCommands();
      const clock = simulatedClock(1_700_000_000_000);
      const l: RateLimit = { calls: 4, perSeconds: 10 };
      const app = createApp({
        commands: spies.commands,
        userAbilities: () => ["*"],
        assistant: { allow: ["*"], rateLimit: l },
      });
      const paths = [client(), client()].map((c) =>
        createCallPath(app, { rateLimits: redisStore(c, { prefix }), clock }),
      );
      const ctx = { user: {}, origin: { kind: "assistant" as const }, scope: "w1" };
      const call = (i: number) =>
        (paths[i % 2] ?? paths[0])?.call({ tool: "customers_show", input: { id: i } }, ctx);
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i)));
      expect(outcomes.filter((o) => o?._tag === "Succeeded")).toHaveLength(4);
      expect(outcomes.filter((o) => o?._tag === "RateLimited")).toHaveLength(16);
      clock.increment(10_000);
      expect((await call(0))?._tag).toBe("Succeeded");
      expect(spies.runs.get("customers_show")).toBe(5);
    });
  });

  it("two proxy instances sharing the Redis store hold one user's limit together, and add up their usage", async () => {
    const prefix = fresh();
    const stores = [redisStore(client(), { prefix }), redisStore(client(), { prefix })];
    // A stand-in upstream: every request used 10 tokens in, 5 out.
    const upstream = async () =>
      Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [{ type: "text", text: "hi" }],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 5 },
      });
    const proxies = stores.map((store) =>
      createProxy({
        apiKey: "sk-server",
        authenticate: () => "ada",
        models: ["claude-test"],
        maxTokens: 100,
        rateLimit: { calls: 3, perSeconds: 60 },
        rateLimits: store,
        usage: store,
        clock: simulatedClock(1_000),
        fetch: upstream,
      }),
    );
    const request = () =>
      new Request("http://proxy.test/v1/messages", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "claude-test",
          max_tokens: 50,
          messages: [{ role: "user", content: "hi" }],
        }),
      });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (proxies[i % 2] ?? proxies[0])?.(request())),
    );
    await Promise.all(responses.map((r) => r?.text()));
    expect(responses.filter((r) => r?.status === 200)).toHaveLength(3);
    expect(responses.filter((r) => r?.status === 429)).toHaveLength(7);
    // The proxies add usage after the answer ends, without waiting: poll briefly.
    const deadline = Date.now() + 2_000;
    while ((await stores[0]?.read(`value:"ada"`))?.requests !== 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await stores[1]?.read(`value:"ada"`)).toEqual({
      inputTokens: 30,
      outputTokens: 15,
      requests: 3,
    });
  });

  describe("usage", () => {
    it("adds up exactly as memoryUsageStore", { timeout: timeoutFor() }, async () => {
      const redis = client();
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              key: fc.constantFrom("ada", "grace", "linus"),
              inputTokens: fc.nat({ max: 200_000 }),
              outputTokens: fc.nat({ max: 64_000 }),
            }),
            { maxLength: 20 },
          ),
          async (adds) => {
            const store = redisStore(redis, { prefix: fresh() });
            const memory = memoryUsageStore();
            for (const { key, ...usage } of adds) {
              await store.add(key, usage);
              memory.add(key, usage);
            }
            for (const key of ["ada", "grace", "linus"])
              expect(await store.read(key)).toEqual(memory.read(key));
          },
        ),
        { numRuns: runs(50) },
      );
    });

    it("reads zeros for a key never added to, and sums what is added", async () => {
      const store = redisStore(server.url, { prefix: fresh() });
      expect(await store.read("user-7")).toEqual({ inputTokens: 0, outputTokens: 0, requests: 0 });
      await store.add("user-7", { inputTokens: 1200, outputTokens: 300 });
      await store.add("user-7", { inputTokens: 5, outputTokens: 0 });
      await store.add("user-8", { inputTokens: 1, outputTokens: 1 });
      expect(await store.read("user-7")).toEqual({
        inputTokens: 1205,
        outputTokens: 300,
        requests: 2,
      });
      expect(await store.read("user-8")).toEqual({ inputTokens: 1, outputTokens: 1, requests: 1 });
      await store.close();
    });

    it("concurrent adds from two clients all count", async () => {
      const prefix = fresh();
      const stores = [redisStore(client(), { prefix }), redisStore(client(), { prefix })];
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          stores[i % 2]?.add("user-7", { inputTokens: i, outputTokens: 2 }),
        ),
      );
      expect(await stores[0]?.read("user-7")).toEqual({
        inputTokens: 4950,
        outputTokens: 200,
        requests: 100,
      });
    });
  });

  describe("fails closed", () => {
    it("a take rejects once its Redis has gone, and the call path refuses the call", async () => {
      const own = await startRedis();
      const store = redisStore(own.url);
      const l: RateLimit = { calls: 5, perSeconds: 60 };
      expect(await store.take("k", l, 0)).toEqual({ _tag: "Allowed" });
      await own.stop();
      await expect(store.take("k", l, 1)).rejects.toThrow();
      const app = createApp({
        commands: spyCommands().commands,
        userAbilities: () => ["*"],
        assistant: { allow: ["*"], rateLimit: l },
      });
      const path = createCallPath(app, { rateLimits: store, clock: simulatedClock(2) });
      const outcome = await path.call(
        { tool: "customers_show", input: { id: 1 } },
        { user: {}, origin: { kind: "assistant" }, scope: "w1" },
      );
      expect(outcome._tag).toBe("RateLimitUnavailable");
      await store.close();
    });

    it("with a given client, a take against a server that never answered rejects; usage too", async () => {
      const redis = new Redis(await freePort(), "127.0.0.1", { maxRetriesPerRequest: 0 });
      redis.on("error", () => {});
      const store = redisStore(redis);
      await expect(store.take("k", { calls: 1, perSeconds: 1 }, 0)).rejects.toThrow();
      await expect(store.add("k", { inputTokens: 1, outputTokens: 1 })).rejects.toThrow();
      await expect(store.read("k")).rejects.toThrow();
      redis.disconnect();
    });
  });

  it("close quits a client the store opened and leaves a given one open", async () => {
    const given = client();
    const store = redisStore(given);
    await store.close();
    expect(await given.ping()).toBe("PONG");
    const owned = redisStore(server.url);
    await owned.take("k", { calls: 1, perSeconds: 1 }, 0);
    await owned.close();
    await expect(owned.take("k", { calls: 1, perSeconds: 1 }, 0)).rejects.toThrow();
  });
});
