/**
 * The money budget on Redis: redisStore's reserve, settle and spend answer
 * as memoryUsageStore's on random operations, hold amounts past Lua's 14
 * digits exactly, expire a period's hash two periods after its last write;
 * and two proxy instances sharing it hold one user's budget together: money
 * spent on one is gone on the other, requests at once on both never pass
 * on the same money, and each warning is told once between them.
 */
import { createProxy, type ProxyBudgetWarning } from "elyra-assistant/proxy";
import { redisStore } from "elyra-assistant/redis";
import { memoryUsageStore, simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveRedis, type RedisServer, redisSuite, startRedis } from "../adapters/redisServer.ts";
import { runs, timeoutFor } from "../properties/runs.ts";

// Each operation is a round trip: fewer runs than the memory property's 1 000.
const NUM_RUNS = 200;
const MODEL = "claude-sonnet-5-5";

/** An upstream answering every request with `outputTokens` of output, after `gate` opens. */
const upstream =
  (outputTokens: number, gate: Promise<void> = Promise.resolve(), seen = { calls: 0 }) =>
  async () => {
    seen.calls++;
    await gate;
    return Response.json({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text: "hi" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 0, output_tokens: outputTokens },
    });
  };

/** A request of `maxTokens` (under the floor of 256, so never clamped): 24 000 + maxTokens × 10 000 nano-dollars. */
const request = (maxTokens: number) =>
  new Request("http://proxy.test/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: maxTokens,
      messages: [{ role: "user", content: "Hi" }],
    }),
  });

const worst = (maxTokens: number) => 24_000 + maxTokens * 10_000;

describe.skipIf(!haveRedis)(redisSuite("the money budget on Redis"), () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis(server.url);
    clients.push(c);
    return c;
  };
  let prefixes = 0;
  const fresh = () => `budget${prefixes++}:`;

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    await server?.stop();
  });

  it("reserves and settles exactly as memoryUsageStore", { timeout: timeoutFor() }, async () => {
    const store = redisStore(client(), { prefix: "twin:" });
    let run = 0;
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("reserve" as const),
        want: fc.integer({ min: 0, max: 400 }),
        least: fc.integer({ min: 0, max: 400 }),
      }),
      fc.record({
        kind: fc.constant("settle" as const),
        reserved: fc.integer({ min: 0, max: 400 }),
        dollars: fc.integer({ min: 0, max: 400 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(op, { maxLength: 12 }),
        async (budget, ops) => {
          // Amounts in thousandths of a cent: whole nano-dollars either way.
          const period = { start: 0, ms: 60_000 };
          const key = `k${run++}`;
          const memory = memoryUsageStore();
          const warnAt = [0.8 * (budget / 1e5), 0.95 * (budget / 1e5)];
          for (const o of ops) {
            if (o.kind === "reserve") {
              const ask = {
                period,
                budget: budget / 1e5,
                want: o.want / 1e5,
                least: Math.min(o.least, o.want) / 1e5,
              };
              expect(await store.reserve(key, ask)).toEqual(memory.reserve(key, ask));
            } else {
              const s = { period, reserved: o.reserved / 1e5, dollars: o.dollars / 1e5, warnAt };
              expect(await store.settle(key, s)).toEqual(memory.settle(key, s));
            }
            expect(await store.spend(key, period)).toEqual(memory.spend(key, period));
          }
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("holds amounts past Lua's 14 digits exactly, and a period's hash expires two periods after its last write", async () => {
    const prefix = fresh();
    const store = redisStore(client(), { prefix });
    const period = { start: 1_800_000_000_000, ms: 86_400_000 };
    const ask = { period, budget: 1_000_000, want: 250_000.000000001, least: 1 };
    expect(await store.reserve("ada", ask)).toEqual({
      _tag: "Reserved",
      dollars: 250_000.000000001,
      spent: 0,
      reserved: 250_000.000000001,
    });
    const settled = await store.settle("ada", {
      period,
      reserved: 250_000.000000001,
      dollars: 812_345.678901234,
      warnAt: [800_000, 950_000],
    });
    expect(settled).toEqual({ spent: 812_345.678901234, reserved: 0, crossed: [800_000] });
    const key = `${prefix}spend:86400000:1800000000000:ada`;
    const ttl = await client().pttl(key);
    expect(ttl).toBeGreaterThan(2 * 86_400_000 - 10_000);
    expect(ttl).toBeLessThanOrEqual(2 * 86_400_000);
    // What is left is granted to one that asks more but takes less; then nothing is left.
    expect((await store.reserve("ada", { ...ask, want: 200_000, least: 0 }))._tag).toBe("Reserved");
    expect((await store.reserve("ada", { ...ask, want: 0.01, least: 0.01 }))._tag).toBe("Refused");
    await store.close();
  });

  it("two proxy instances share one user's spend: what one spent, the other refuses", async () => {
    const prefix = fresh();
    const stores = [redisStore(client(), { prefix }), redisStore(client(), { prefix })];
    const clock = simulatedClock(0);
    const proxies = stores.map((store) =>
      createProxy({
        apiKey: "sk-server",
        authenticate: () => "ada",
        models: [MODEL],
        maxTokens: 1024,
        rateLimit: false,
        usage: store,
        budget: { dollars: (worst(100) + 50 * 10_000) / 1e9, perSeconds: 60 },
        clock,
        fetch: upstream(100),
      }),
    );
    const first = await proxies[0]?.(request(100));
    expect(first?.status).toBe(200);
    await first?.text();
    const period = { start: 0, ms: 60_000 };
    const deadline = Date.now() + 2_000;
    while (
      (await stores[1]?.spend(`value:"ada"`, period))?.spent !== 0.001 &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 5));
    // $0.001 spent of $0.001524: 52.4 output tokens' worth left, under what a request of 100 needs.
    const second = await proxies[1]?.(request(100));
    expect(second?.status).toBe(429);
    expect(second?.headers.get("elyra-budget-remaining")).toBe("0.000524");
  });

  it("requests at once on two instances never pass on the same money, and each warning is told once", async () => {
    const prefix = fresh();
    const stores = [redisStore(client(), { prefix }), redisStore(client(), { prefix })];
    let open: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const seen = { calls: 0 };
    const warnings: ProxyBudgetWarning<string>[] = [];
    const proxies = stores.map((store) =>
      createProxy({
        apiKey: "sk-server",
        authenticate: () => "ada",
        models: [MODEL],
        maxTokens: 1024,
        rateLimit: false,
        usage: store,
        // Room for three and a half requests' worst case; each costs it all (100 output tokens).
        budget: { dollars: (3.5 * worst(100)) / 1e9, perSeconds: 60 },
        clock: simulatedClock(0),
        fetch: upstream(100, gate, seen),
        onBudgetWarning: (warning) => warnings.push(warning),
      }),
    );
    const answers = Array.from({ length: 20 }, (_, i) => proxies[i % 2]?.(request(100)));
    const deadline = Date.now() + 5_000;
    let refused = 0;
    for (const answer of answers) void answer?.then((r) => r.status === 429 && refused++);
    while (seen.calls + refused < 20 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.calls).toBe(3);
    open?.();
    const statuses = await Promise.all(answers.map(async (a) => (await a)?.status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    // 3 × $0.001 of $0.003584: 84 %, told once, by whichever instance settled past it.
    const period = { start: 0, ms: 60_000 };
    while ((await stores[0]?.spend(`value:"ada"`, period))?.reserved !== 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warnings.map((w) => w.share)).toEqual([0.8]);
  });
});
