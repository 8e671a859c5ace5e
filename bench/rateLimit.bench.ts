/**
 * The in-memory rate-limit store at its limit: a take costs the same whatever
 * the limit. Each case fills one key's sliding window to its limit, then takes
 * at a steady pace, so that each take finds one time expired and one place
 * free (the most a take does). The baseline is the same at a limit of 10.
 */
import { memoryRateLimitStore } from "elyra-assistant";
import type { Benchmark, BenchResult } from "./report.ts";

const TARGET_RATIO = 2;
const LIMITS = [10, 10_000, 100_000] as const;
const TAKES = 200_000;
const ROUNDS = 5;

/** µs per take, steady state, for a window of `calls` a minute kept full. */
const perTake = (calls: number): number => {
  const store = memoryRateLimitStore();
  const limit = { calls, perSeconds: 60 };
  const stepMs = (60_000 / calls) * 1.000001;
  let now = 0;
  for (let i = 0; i < calls; i++) {
    store.take("k", limit, now);
    now += stepMs;
  }
  // Warm: the compiler has seen the steady path.
  for (let i = 0; i < 20_000; i++) {
    store.take("k", limit, now);
    now += stepMs;
  }
  let allowed = 0;
  const from = performance.now();
  for (let i = 0; i < TAKES; i++) {
    if ((store.take("k", limit, now) as { _tag: string })._tag === "Allowed") allowed++;
    now += stepMs;
  }
  const us = ((performance.now() - from) * 1000) / TAKES;
  if (allowed < TAKES * 0.9) throw new Error(`only ${allowed} of ${TAKES} takes were allowed`);
  return us;
};

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] as number;
};
const r2 = (value: number) => Math.round(value * 100) / 100;

const run = async (): Promise<BenchResult> => {
  const figures = new Map<number, number[]>(LIMITS.map((l) => [l, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const calls of round % 2 === 0 ? LIMITS : [...LIMITS].reverse())
      figures.get(calls)?.push(perTake(calls));
  const base = median(figures.get(LIMITS[0]) ?? []);
  const rows = LIMITS.map((calls) => {
    const us = median(figures.get(calls) ?? []);
    const ratio = us / base;
    return {
      case: `${calls.toLocaleString("en")} calls a minute, window full`,
      usPerTake: r2(us),
      ratio: r2(ratio),
      pass: ratio <= TARGET_RATIO,
    };
  });
  return {
    title: "rate limit: the in-memory store's take at its limit",
    baseline: `the same store at a limit of ${LIMITS[0]} calls a minute`,
    target: `≤ ${TARGET_RATIO}× the baseline's time per take, whatever the limit`,
    pass: rows.every((r) => r.pass),
    headline: "ratio",
    columns: ["case", "usPerTake", "ratio", "pass"],
    rows,
    notes: [
      `${TAKES.toLocaleString("en")} takes a round after the window is filled and 20,000 warm-up ` +
        `takes; each take one expired and one free (a steady pace just over the limit's); medians of ${ROUNDS} rounds, ` +
        "the order reversed each round.",
      "A take used to drop expired times by splicing the array's front, which moves every live " +
        "time: O(limit) a take once the window is full.",
    ],
  };
};

export const benchmark: Benchmark = { name: "rateLimit", run };
