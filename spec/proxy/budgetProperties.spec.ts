/**
 * The budget's invariant as properties. The store: a reservation is granted
 * only while spent + reserved stays within the budget, between `least` and
 * `want`, and refused only when the room is under `least`. Through the
 * proxy, for random requests of one user at once (each held upstream until
 * all are decided, so none settles first): the worst cases of the requests
 * that went, at the `max_tokens` they were sent with, add up to no more than
 * the budget; and when upstream bills no more than that worst case, what
 * is spent never passes the budget, and nothing stays held.
 */
import { createProxy } from "elyra-assistant/proxy";
import { memoryUsageStore } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateJsonTokens } from "../../src/runtime/prompt/tokens.ts";
import { runs, timeoutFor } from "../properties/runs.ts";

const NUM_RUNS = 1_000;
const MODEL = "claude-sonnet-5-5";
/** claude-sonnet-5-5's prices, nano-dollars a token. */
const INPUT = 2_000;
const OUTPUT = 10_000;
const FLOOR = 256;
const PERIOD = { start: 0, ms: 60_000 };

describe("the budget's invariant", () => {
  it("the store: granted only within the budget, between least and want; refused only when under least", () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("reserve" as const),
        want: fc.integer({ min: 0, max: 5_000 }),
        least: fc.integer({ min: 0, max: 5_000 }),
      }),
      fc.record({
        kind: fc.constant("settle" as const),
        pick: fc.nat(),
        share: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(op, { maxLength: 40 }),
        (budget, ops) => {
          // Amounts in whole nano-dollars, as the store holds them.
          const store = memoryUsageStore();
          const held: number[] = [];
          let spent = 0;
          for (const o of ops) {
            if (o.kind === "reserve") {
              const least = Math.min(o.least, o.want);
              const room = budget - spent - held.reduce((a, b) => a + b, 0);
              const grant = store.reserve("k", {
                period: PERIOD,
                budget: budget / 1e9,
                want: o.want / 1e9,
                least: least / 1e9,
              });
              if (grant._tag === "Refused") {
                expect(room).toBeLessThan(least);
                continue;
              }
              const dollars = Math.round(grant.dollars * 1e9);
              expect(dollars).toBeGreaterThanOrEqual(least);
              expect(dollars).toBeLessThanOrEqual(o.want);
              expect(Math.round((grant.spent + grant.reserved) * 1e9)).toBeLessThanOrEqual(budget);
              held.push(dollars);
            } else if (held.length > 0) {
              // A request settles at most what it held: its actual cost within its worst case.
              const [reserved = 0] = held.splice(o.pick % held.length, 1);
              const cost = Math.floor(reserved * o.share);
              spent += cost;
              store.settle("k", { period: PERIOD, reserved: reserved / 1e9, dollars: cost / 1e9 });
            }
            const totals = store.spend("k", PERIOD);
            expect(Math.round(totals.spent * 1e9)).toBe(spent);
            expect(Math.round((totals.spent + totals.reserved) * 1e9)).toBeLessThanOrEqual(budget);
          }
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  const requestArb = fc.record({
    text: fc.string({ maxLength: 600 }),
    system: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
    maxTokens: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 2048 })),
    // How much of the forwarded max_tokens the answer uses.
    used: fc.double({ min: 0, max: 1, noNaN: true }),
  });

  it("through the proxy: what went at once fits the budget, and the spend never passes it", {
    timeout: timeoutFor(),
  }, async () => {
    let clamped = 0;
    let refusedAll = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30_000_000 }),
        fc.array(requestArb, { minLength: 1, maxLength: 6 }),
        async (budget, requests) => {
          const usage = memoryUsageStore();
          const bodies = requests.map((r) => ({
            model: MODEL,
            max_tokens: r.maxTokens,
            messages: [{ role: "user", content: r.text }],
            ...(r.system === undefined ? {} : { system: r.system }),
          }));
          const estimate = (b: (typeof bodies)[number]) =>
            estimateJsonTokens({ system: b.system, messages: b.messages });
          const least = bodies.map(
            (b) => estimate(b) * INPUT + Math.min(b.max_tokens, FLOOR) * OUTPUT,
          );
          let open: () => void = () => undefined;
          const gate = new Promise<void>((resolve) => {
            open = resolve;
          });
          let opened = false;
          let decided = 0;
          const decide = () => {
            decided++;
            if (decided === bodies.length) {
              opened = true;
              open();
            }
          };
          const sent: Array<(typeof bodies)[number]> = [];
          const errors: unknown[] = [];
          const handle = createProxy<string>({
            apiKey: "sk-server",
            authenticate: () => "ada",
            models: [MODEL],
            maxTokens: 2048,
            rateLimit: false,
            usage,
            budget: { dollars: budget / 1e9, perSeconds: 60 },
            fetch: async (_, init) => {
              const body = JSON.parse(String(init?.body)) as (typeof sent)[number];
              const used =
                requests[
                  bodies.findIndex((b) => b.messages[0]?.content === body.messages[0]?.content)
                ]?.used ?? 0;
              sent.push(body);
              decide();
              await gate;
              // Upstream bills the estimate and at most the max_tokens sent: within the worst case.
              return Response.json({
                type: "message",
                content: [],
                usage: {
                  input_tokens: estimate(body),
                  output_tokens: Math.floor(body.max_tokens * used),
                },
              });
            },
            onError: (error) => errors.push(error),
          });
          const answers = bodies.map((body) =>
            handle(
              new Request("https://app.test/v1/messages", {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify(body),
              }),
            ).then((response) => {
              if (!opened) decide();
              return response;
            }),
          );
          const responses = await Promise.all(answers);
          await Promise.all(responses.map((r) => r.text()));

          // What went, at once, at the max_tokens it was sent with: within the budget.
          const worst = sent.map((b) => estimate(b) * INPUT + b.max_tokens * OUTPUT);
          const held = worst.reduce((a, b) => a + b, 0);
          expect(held).toBeLessThanOrEqual(budget);
          for (const [i, response] of responses.entries()) {
            const body = bodies[i] as (typeof bodies)[number];
            if (response.status === 429) {
              // Refused only when the room left, after all that went, is under its least.
              expect(budget - held).toBeLessThan(least[i] as number);
              continue;
            }
            expect(response.status).toBe(200);
            const clampedTo = response.headers.get("elyra-budget-max-tokens");
            if (clampedTo !== null) {
              clamped++;
              expect(Number(clampedTo)).toBeLessThan(body.max_tokens);
              expect(Number(clampedTo)).toBeGreaterThanOrEqual(Math.min(body.max_tokens, FLOOR));
            }
          }
          expect(sent).toHaveLength(responses.filter((r) => r.status === 200).length);
          if (sent.length === 0) refusedAll++;
          // Settled: nothing held, and the spend (within each worst case) within the budget.
          await new Promise((resolve) => setTimeout(resolve, 0));
          const totals = usage.spend(`value:"ada"`, PERIOD);
          expect(totals.reserved).toBe(0);
          expect(errors).toEqual([]);
          expect(Math.round(totals.spent * 1e9)).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
    // Both sides are tried: clamped requests, and runs where nothing fits.
    expect(clamped).toBeGreaterThan(runs(NUM_RUNS) / 20);
    expect(refusedAll).toBeGreaterThan(runs(NUM_RUNS) / 50);
  });
});
