/**
 * R1: under a simulated clock, for random arrivals, at most L calls per window
 * per tool are accepted in any span of the limit's length, and a refusal names
 * the exact wait. R3: K concurrent calls never take more than the limit.
 */
import {
  createApp,
  createCallPath,
  formatOutcome,
  memoryRateLimitStore,
  type RateLimitStore,
} from "elyra-assistant";
import { simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spyCommands } from "../fixtures/spyCommands.ts";
import { ReferenceLimiter } from "./reference.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;

const limit = fc.record({
  calls: fc.integer({ min: 1, max: 5 }),
  perSeconds: fc.integer({ min: 1, max: 120 }),
});

describe("R1: at most L calls in any window, per window and per tool", () => {
  it("the store accepts exactly what a sliding window allows, and tells the exact wait", {
    timeout: timeoutFor(),
  }, () => {
    fc.assert(
      fc.property(
        limit,
        fc.array(
          fc.record({
            gapMs: fc.integer({ min: 0, max: 30_000 }),
            key: fc.constantFrom("w1:a", "w1:b", "w2:a"),
          }),
          {
            maxLength: 60,
          },
        ),
        (l, arrivals) => {
          const store = memoryRateLimitStore();
          const reference = new ReferenceLimiter();
          const accepted = new Map<string, number[]>();
          let now = 0;
          for (const { gapMs, key } of arrivals) {
            now += gapMs;
            const decision = store.take(key, l, now);
            const expected = reference.take(key, l.calls, l.perSeconds * 1000, now);
            if (decision instanceof Promise) throw new Error("the memory store is synchronous");
            if (expected === "ok") {
              expect(decision).toEqual({ _tag: "Allowed" });
              accepted.set(key, [...(accepted.get(key) ?? []), now]);
            } else {
              expect(decision).toEqual({ _tag: "Limited", retryAfterMs: expected });
            }
          }
          // No span of the window's length holds more than L accepted calls of one key.
          for (const times of accepted.values()) {
            for (let i = 0; i + l.calls < times.length; i++) {
              expect((times[i + l.calls] as number) - (times[i] as number)).toBeGreaterThanOrEqual(
                l.perSeconds * 1000,
              );
            }
          }
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("through the call path on a simulated clock: refused calls run nothing and waiting the said time is enough", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        limit,
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 30 }),
        async (l, gaps) => {
          const spies = spyCommands();
          const clock = simulatedClock(0);
          const app = createApp({
            commands: spies.commands,
            userAbilities: () => ["*"],
            assistant: { allow: ["*"], rateLimit: l },
          });
          const path = createCallPath(app, { clock });
          const ctx = { user: {}, origin: { kind: "assistant" as const }, scope: "w1" };
          let ran = 0;
          for (const gap of gaps) {
            clock.increment(gap);
            const outcome = await path.call({ tool: "customers_show", input: { id: 1 } }, ctx);
            if (outcome._tag === "Succeeded") ran++;
            else {
              expect(outcome._tag).toBe("RateLimited");
              const seconds = Number(
                /try again in (\d+) s$/.exec(formatOutcome(outcome).text)?.[1],
              );
              expect(seconds).toBe(
                Math.ceil((outcome as { retryAfterMs: number }).retryAfterMs / 1000),
              );
              // Waiting the exact time frees a place; a probe in another tool's count shows nothing else changed.
              const waitMs = (outcome as { retryAfterMs: number }).retryAfterMs;
              clock.increment(waitMs - 1);
              expect(
                (await path.call({ tool: "customers_show", input: { id: 1 } }, ctx))._tag,
              ).toBe("RateLimited");
              clock.increment(1);
              expect(
                (await path.call({ tool: "customers_show", input: { id: 1 } }, ctx))._tag,
              ).toBe("Succeeded");
              ran++;
            }
          }
          expect(spies.runs.get("customers_show") ?? 0).toBe(ran);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe("R3: concurrent calls never take more than the limit", () => {
  it("K calls at once, their steps interleaved by fc.scheduler, an async store: exactly min(K, L) run", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), limit, fc.integer({ min: 1, max: 20 }), async (s, l, k) => {
        const spies = spyCommands();
        const inner = memoryRateLimitStore();
        // A store that answers later, in an order the scheduler picks (as a networked store would).
        const store: RateLimitStore = {
          take: async (key, lim, now) => {
            await s.schedule(Promise.resolve(), "store round trip");
            return inner.take(key, lim, now);
          },
        };
        const app = createApp({
          commands: spies.commands,
          userAbilities: () => ["*"],
          assistant: { allow: ["*"], rateLimit: l },
        });
        const path = createCallPath(app, { rateLimits: store, clock: simulatedClock(0) });
        const calls = Array.from({ length: k }, (_, i) =>
          s
            .schedule(Promise.resolve(), `call ${i}`)
            .then(() =>
              path.call(
                { tool: "customers_show", input: { id: i } },
                { user: {}, origin: { kind: "assistant" }, scope: "w1" },
              ),
            ),
        );
        await s.waitAll();
        const outcomes = await Promise.all(calls);
        expect(outcomes.filter((o) => o._tag === "Succeeded")).toHaveLength(Math.min(k, l.calls));
        expect(outcomes.filter((o) => o._tag === "RateLimited")).toHaveLength(
          Math.max(0, k - l.calls),
        );
        expect(spies.runs.get("customers_show") ?? 0).toBe(Math.min(k, l.calls));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
