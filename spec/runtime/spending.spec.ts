/**
 * Issue 32, item 5: what a conversation used and cost, summed from its
 * `StepFinished` events by the spending fold: priced by the model that
 * answered, at the table given, the last turns one by one, bounded state,
 * and the same sums however the log is read (whole, or a page at a time).
 */

import {
  addTallies,
  costOf,
  DEFAULT_PRICES,
  EMPTY_TALLY,
  type LogEvent,
  NO_SPENDING,
  priceOf,
  SPENDING_TURNS_KEPT,
  spendingOf,
  type Usage,
} from "elyra-assistant/log";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../properties/runs.ts";

const SONNET = "claude-sonnet-5-5";
const sonnet = priceOf(SONNET)!;

let seq = 0;
const step = (
  turn: number,
  usage: Usage,
  more: { at?: number; model?: string } = {},
): LogEvent => ({
  _tag: "StepFinished",
  seq: ++seq,
  at: more.at ?? 1_000 + seq,
  turn,
  step: 1,
  stopReason: "end_turn",
  usage,
  ...(more.model === undefined ? {} : { model: more.model }),
});

describe("the spending fold", () => {
  const fold = spendingOf({ fallbackModel: SONNET });

  it("adds tokens by kind, cache writes by TTL, the API's own tool calls, and their cost at the model's prices", () => {
    const a: Usage = {
      inputTokens: 1_000,
      outputTokens: 200,
      cacheReadTokens: 20_000,
      cacheWriteTokens: 3_000,
      cacheWrite1hTokens: 1_000,
      serverToolUses: 2,
    };
    const b: Usage = { inputTokens: 50, outputTokens: 10 };
    const spent = fold.fold([
      step(1, a, { model: SONNET }),
      step(2, b, { model: "claude-opus-5-5" }),
    ]);
    expect(spent.total).toEqual({
      steps: 2,
      inputTokens: 1_050,
      outputTokens: 210,
      cacheReadTokens: 20_000,
      cacheWrite5mTokens: 2_000,
      cacheWrite1hTokens: 1_000,
      serverToolUses: 2,
      dollars: Math.round((costOf(a, sonnet) + costOf(b, priceOf("claude-opus-5-5")!)) * 1e9) / 1e9,
      unpricedSteps: 0,
    });
    // Sonnet 5.5 at $2/$10, reads $0.10, writes $2.50 (5 min) and $4 (1 h), a million tokens.
    expect(costOf(a, sonnet)).toBeCloseTo(
      (1_000 * 2 + 200 * 10 + 20_000 * 0.1 + 2_000 * 2.5 + 1_000 * 4) / 1e6,
      12,
    );
  });

  it("prices a dated model id as its family, one logged without a model as the fallback, and counts an unknown one's steps apart", () => {
    const usage: Usage = { inputTokens: 1_000_000, outputTokens: 0 };
    const spent = fold.fold([
      step(1, usage, { model: "claude-haiku-4-5-20251001" }),
      step(1, usage),
      step(1, usage, { model: "my-local-model" }),
    ]);
    // Haiku 4.5 input $1, Sonnet 5.5 (the fallback) $2; the local model's tokens counted, not priced.
    expect(spent.total.dollars).toBe(3);
    expect(spent.total.unpricedSteps).toBe(1);
    expect(spent.total.inputTokens).toBe(3_000_000);
  });

  it("reckons at the table it is given", () => {
    const discounted = spendingOf({
      fallbackModel: SONNET,
      prices: { ...DEFAULT_PRICES, [SONNET]: { ...sonnet, input: 1 } },
    });
    expect(
      discounted.fold([step(1, { inputTokens: 1_000_000, outputTokens: 0 })]).total.dollars,
    ).toBe(1);
  });

  it("counts only steps finished at or after `since`, and tells the first and last of them", () => {
    const since = spendingOf({ fallbackModel: SONNET, since: 5_000 });
    const spent = since.fold([
      step(1, { inputTokens: 10, outputTokens: 1 }, { at: 4_999 }),
      step(2, { inputTokens: 20, outputTokens: 2 }, { at: 5_000 }),
      step(3, { inputTokens: 30, outputTokens: 3 }, { at: 6_000 }),
    ]);
    expect(spent.total.inputTokens).toBe(50);
    expect([spent.firstAt, spent.lastAt]).toEqual([5_000, 6_000]);
    expect(spent.turns.map((t) => t.turn)).toEqual([2, 3]);
  });

  it("tells the context of the last request: its input, cached or not", () => {
    const spent = fold.fold([
      step(1, { inputTokens: 100, outputTokens: 5, cacheReadTokens: 9_000 }),
      step(2, {
        inputTokens: 300,
        outputTokens: 5,
        cacheReadTokens: 12_000,
        cacheWriteTokens: 700,
      }),
    ]);
    expect(spent.context).toBe(13_000);
  });

  it("keeps the last SPENDING_TURNS_KEPT turns one by one, so its state stays a few KB over any length", () => {
    const events = Array.from({ length: 500 }, (_, i) =>
      step(i + 1, { inputTokens: 10, outputTokens: 1 }),
    );
    const spent = fold.fold(events);
    expect(spent.turns).toHaveLength(SPENDING_TURNS_KEPT);
    expect(spent.turns[0]?.turn).toBe(500 - SPENDING_TURNS_KEPT + 1);
    expect(spent.total.steps).toBe(500);
    expect(JSON.stringify(spent).length).toBeLessThan(8_000);
  });

  it("ignores every other event, resets included: what was spent stays spent", () => {
    const spent = fold.fold([
      step(1, { inputTokens: 10, outputTokens: 1 }),
      { _tag: "Reset", seq: ++seq, at: 2_000, turn: 1 },
      { _tag: "Answered", seq: ++seq, at: 2_001, turn: 2, text: "hi" },
    ]);
    expect(spent.total.steps).toBe(1);
    expect(NO_SPENDING.total).toEqual(EMPTY_TALLY);
  });
});

const usageArb: fc.Arbitrary<Usage> = fc
  .record({
    inputTokens: fc.nat(200_000),
    outputTokens: fc.nat(8_000),
    cacheReadTokens: fc.option(fc.nat(200_000), { nil: undefined }),
    cacheWriteTokens: fc.option(fc.nat(50_000), { nil: undefined }),
    cacheWrite1hTokens: fc.option(fc.nat(50_000), { nil: undefined }),
    serverToolUses: fc.option(fc.nat(5), { nil: undefined }),
  })
  .map((u) => Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as Usage);

const stepsArb = fc.array(
  fc.record({
    turnStep: fc.nat(2),
    usage: usageArb,
    model: fc.constantFrom(
      SONNET,
      "claude-opus-5-5",
      "claude-haiku-4-5-20251001",
      "unknown-model",
      undefined,
    ),
  }),
  { maxLength: 60 },
);

type StepArb = typeof stepsArb extends fc.Arbitrary<ReadonlyArray<infer S>> ? S : never;

const logOf = (steps: ReadonlyArray<StepArb>): LogEvent[] => {
  let turn = 1;
  return steps.map((s, i) => {
    turn += s.turnStep === 0 ? 1 : 0;
    return {
      _tag: "StepFinished",
      seq: i + 1,
      at: 10_000 + i,
      turn,
      step: 1,
      stopReason: "end_turn",
      usage: s.usage,
      ...(s.model === undefined ? {} : { model: s.model }),
    } satisfies LogEvent;
  });
};

describe("the spending fold's properties", () => {
  const fold = spendingOf({ fallbackModel: SONNET });

  it("folded a page at a time equals folded whole, and each step's cost adds to the total to the nano-dollar", () => {
    fc.assert(
      fc.property(stepsArb, fc.array(fc.nat(60), { maxLength: 5 }), (steps, cuts) => {
        const log = logOf(steps);
        const whole = fold.fold(log);
        const bounds = [
          ...new Set([0, ...cuts.map((c) => Math.min(c, log.length)), log.length]),
        ].sort((a, b) => a - b);
        let paged = NO_SPENDING;
        for (let i = 1; i < bounds.length; i++)
          paged = fold.fold(log.slice(bounds[i - 1], bounds[i]), paged);
        expect(paged).toEqual(whole);
        // Applied one event at a time (as a window's view is) gives the same as the fold.
        expect(log.reduce(fold.apply, fold.initial)).toEqual(whole);
        const nanos = log.reduce((sum, e) => {
          if (e._tag !== "StepFinished") return sum;
          const price = priceOf(e.model ?? SONNET);
          return price === undefined ? sum : sum + Math.round(costOf(e.usage, price) * 1e9);
        }, 0);
        expect(Math.round(whole.total.dollars * 1e9)).toBe(nanos);
        expect(whole.total.steps).toBe(log.length);
        expect(whole.total.unpricedSteps).toBe(
          steps.filter((s) => s.model === "unknown-model").length,
        );
      }),
      { numRuns: runs(1_000) },
    );
  });

  it("a conversation split anywhere: the tallies of its parts add up to its own", () => {
    fc.assert(
      fc.property(stepsArb, fc.nat(60), (steps, cut) => {
        const log = logOf(steps);
        const at = Math.min(cut, log.length);
        const parts = addTallies(fold.fold(log.slice(0, at)).total, fold.fold(log.slice(at)).total);
        expect(parts).toEqual(fold.fold(log).total);
      }),
      { numRuns: runs(1_000) },
    );
  });

  it("with no more turns than it keeps, its turns add up to its total", () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        const spent = fold.fold(logOf(steps));
        fc.pre(spent.turns.length < SPENDING_TURNS_KEPT);
        const { turn: _turn, ...first } = spent.turns[0] ?? { turn: 0, ...EMPTY_TALLY };
        const summed = spent.turns
          .slice(1)
          .reduce((sum, { turn: _t, ...t }) => addTallies(sum, t), first);
        expect(summed).toEqual(spent.total);
      }),
      { numRuns: runs(1_000) },
    );
  });
});
