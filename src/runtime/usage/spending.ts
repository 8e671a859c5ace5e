/**
 * What a conversation used and cost: every `StepFinished`'s usage added up,
 * for the whole conversation (resets included: what was spent stays spent),
 * its last turns one by one, and the context its last request held. Priced
 * with a table as it folds, so the same log read with another table gives
 * that table's dollars.
 */
import type { LogEvent } from "../log/events.ts";
import { type Projection, projectionOf } from "../log/projection.ts";
import { cacheWritesOf, inputOf, type Usage } from "../log/stepUsage.ts";
import { costOf, DEFAULT_PRICES, type ModelPrice, type PriceTable, priceOf } from "./prices.ts";

/**
 * Usage added up over some steps: tokens by kind, the API's own tool calls,
 * and what they cost in US dollars. `unpricedSteps` counts the steps of a
 * model the price table does not have (their tokens are counted, not their cost).
 *
 * @example
 * ```ts
 * const { dollars, cacheReadTokens, inputTokens } = (await host.usage({ user })).total;
 * const cached = cacheReadTokens / (cacheReadTokens + inputTokens);
 * ```
 */
export interface UsageTally {
  readonly steps: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  /** Written to the prompt cache with the five-minute TTL. */
  readonly cacheWrite5mTokens: number;
  /** Written to the prompt cache with the one-hour TTL. */
  readonly cacheWrite1hTokens: number;
  /** Calls the API ran itself (tool search, code execution). */
  readonly serverToolUses: number;
  /** US dollars, at the price table's prices, rounded to the nano-dollar. */
  readonly dollars: number;
  readonly unpricedSteps: number;
}

/**
 * A tally of no steps: where sums start.
 *
 * @example
 * ```ts
 * const { conversations } = await host.usage({ user });
 * const all = conversations.map((c) => c.total).reduce(addTallies, EMPTY_TALLY);
 * ```
 */
export const EMPTY_TALLY: UsageTally = {
  steps: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  serverToolUses: 0,
  dollars: 0,
  unpricedSteps: 0,
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Money is summed in whole nano-dollars, so that a sum does not depend on the order it was added in. */
const NANOS = 1e9;

/** What one step's usage at `price` adds to `tally` (changed in place). */
const addStep = (tally: Mutable<UsageTally>, usage: Usage, price: ModelPrice | undefined): void => {
  const { fiveMinutes, hour } = cacheWritesOf(usage);
  tally.steps += 1;
  tally.inputTokens += usage.inputTokens;
  tally.outputTokens += usage.outputTokens;
  tally.cacheReadTokens += usage.cacheReadTokens ?? 0;
  tally.cacheWrite5mTokens += fiveMinutes;
  tally.cacheWrite1hTokens += hour;
  tally.serverToolUses += usage.serverToolUses ?? 0;
  if (price === undefined) tally.unpricedSteps += 1;
  else
    tally.dollars =
      (Math.round(tally.dollars * NANOS) + Math.round(costOf(usage, price) * NANOS)) / NANOS;
};

/**
 * The sum of two tallies.
 *
 * @example
 * ```ts
 * const both = addTallies(monday.total, tuesday.total);
 * ```
 */
export const addTallies = (a: UsageTally, b: UsageTally): UsageTally => ({
  steps: a.steps + b.steps,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheWrite5mTokens: a.cacheWrite5mTokens + b.cacheWrite5mTokens,
  cacheWrite1hTokens: a.cacheWrite1hTokens + b.cacheWrite1hTokens,
  serverToolUses: a.serverToolUses + b.serverToolUses,
  dollars: (Math.round(a.dollars * NANOS) + Math.round(b.dollars * NANOS)) / NANOS,
  unpricedSteps: a.unpricedSteps + b.unpricedSteps,
});

/**
 * How many of the last turns a {@link Spending} tells one by one.
 *
 * @example
 * ```ts
 * const shown = spent.turns.slice(-SPENDING_TURNS_KEPT); // all of them: never more
 * ```
 */
export const SPENDING_TURNS_KEPT = 20;

/** One turn's tally. */
export interface TurnTally extends UsageTally {
  readonly turn: number;
}

/**
 * What a conversation used: all of it (`total`), its last
 * {@link SPENDING_TURNS_KEPT} turns, the input of its last request
 * (`context`: tokens sent, cached or not, the size of what the model read)
 * and when its first and last steps finished (ms since the epoch; 0 with none).
 */
export interface Spending {
  readonly total: UsageTally;
  readonly turns: ReadonlyArray<TurnTally>;
  readonly context: number;
  readonly firstAt: number;
  readonly lastAt: number;
}

const foldStep = (prices: PriceTable, since: number, fallbackModel: string) => {
  /** Prices looked up once per model id. */
  const known = new Map<string, ModelPrice | undefined>();
  const priced = (model: string): ModelPrice | undefined => {
    if (!known.has(model)) known.set(model, priceOf(model, prices));
    return known.get(model);
  };
  return (draft: Mutable<Spending>, event: LogEvent): void => {
    if (event._tag !== "StepFinished" || event.at < since) return;
    const price = priced(event.model ?? fallbackModel);
    addStep(draft.total as Mutable<UsageTally>, event.usage, price);
    const turns = draft.turns as Array<Mutable<TurnTally>>;
    let last = turns.at(-1);
    if (last?.turn !== event.turn) {
      last = { ...EMPTY_TALLY, turn: event.turn };
      turns.push(last);
      if (turns.length > SPENDING_TURNS_KEPT) turns.shift();
    }
    addStep(last, event.usage, price);
    draft.context = inputOf(event.usage);
    if (draft.firstAt === 0) draft.firstAt = event.at;
    draft.lastAt = event.at;
  };
};

/**
 * The spending of a log with no steps: where a fold page by page starts.
 *
 * @example
 * ```ts
 * const fold = spendingOf({ fallbackModel: "claude-sonnet-5-5" });
 * let spent = NO_SPENDING;
 * for (const page of pages) spent = fold.fold(page, spent);
 * ```
 */
export const NO_SPENDING: Spending = {
  total: EMPTY_TALLY,
  turns: [],
  context: 0,
  firstAt: 0,
  lastAt: 0,
};

/**
 * The spending fold at a price table: steps finished at or after `since`
 * (ms since the epoch; all of them by default) added up, each priced by the
 * model that answered it (`fallbackModel` for a step logged without one).
 * Its state is a few hundred bytes, whatever the log's length.
 *
 * @example
 * ```ts
 * const spent = spendingOf({ fallbackModel: "claude-sonnet-5-5" });
 * const { total, context } = spent.fold(await store.read("conversation/w1", 0));
 * console.log(`$${total.dollars.toFixed(2)}, ${context} tokens in its last request`);
 * ```
 */
export const spendingOf = (options: {
  readonly prices?: PriceTable;
  readonly fallbackModel: string;
  readonly since?: number;
}): Projection<Spending> =>
  projectionOf<Spending>(
    NO_SPENDING,
    foldStep(options.prices ?? DEFAULT_PRICES, options.since ?? 0, options.fallbackModel) as (
      draft: unknown,
      event: LogEvent,
    ) => void,
  );
