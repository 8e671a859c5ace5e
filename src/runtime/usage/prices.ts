/**
 * What tokens cost: a price table per model, in US dollars a million tokens,
 * and the cost of one step's usage at a model's prices. The defaults are
 * Anthropic's list prices as read on {@link PRICES_READ_ON}; an app with
 * other prices (a discount, a model not listed) gives its own table.
 */
import { Schema } from "effect";
import { cacheWritesOf, type Usage } from "../log/stepUsage.ts";

const Dollars = Schema.Number.pipe(Schema.finite(), Schema.nonNegative());

/**
 * One model's prices, US dollars a million tokens: input and output, a token
 * read from the prompt cache, and one written to it with the five-minute or
 * the one-hour TTL.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const price = Schema.decodeUnknownSync(ModelPrice)({
 *   input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6,
 * });
 * ```
 */
export const ModelPrice = Schema.Struct({
  input: Dollars,
  output: Dollars,
  cacheRead: Dollars,
  cacheWrite5m: Dollars,
  cacheWrite1h: Dollars,
});
export type ModelPrice = typeof ModelPrice.Type;

/**
 * A price table: prices by model id. A dated id (`claude-haiku-4-5-20251001`)
 * takes the prices of the longest id in the table it starts with.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const prices = Schema.decodeUnknownSync(PriceTable)({
 *   "claude-sonnet-5-5": { input: 2, output: 10, cacheRead: 0.1, cacheWrite5m: 2.5, cacheWrite1h: 4 },
 * });
 * ```
 */
export const PriceTable = Schema.Record({ key: Schema.NonEmptyString, value: ModelPrice });
export type PriceTable = typeof PriceTable.Type;

/**
 * When the default prices were read off Anthropic's pricing and model pages.
 *
 * @example
 * ```ts
 * console.log(`Costs at Anthropic's list prices of ${PRICES_READ_ON}.`);
 * ```
 */
export const PRICES_READ_ON = "2026-12-01";

/** A model's prices from its input and output price, with the usual cache multipliers (read 0.1×, write 1.25× and 2×) unless a read price is given. */
const listed = (input: number, output: number, cacheRead = input * 0.1): ModelPrice => ({
  input,
  output,
  cacheRead,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
});

/**
 * Anthropic's list prices, US dollars a million tokens, as read on
 * {@link PRICES_READ_ON} (standard tier, no batch discount, global
 * inference). Cache writes cost 1.25× the input price for five minutes and
 * 2× for an hour; reads 0.1×, except where a model's page says less.
 *
 * @example
 * ```ts
 * DEFAULT_PRICES["claude-sonnet-5-5"]?.input; // 2
 * ```
 */
export const DEFAULT_PRICES: PriceTable = {
  "claude-haiku-4-5": listed(1, 5),
  "claude-haiku-5-5": listed(0.1, 0.5),
  "claude-sonnet-4-5": listed(3, 15),
  "claude-sonnet-4-6": listed(3, 15),
  "claude-sonnet-5": listed(2, 10),
  "claude-sonnet-5-5": listed(2, 10, 0.1),
  "claude-opus-4-1": listed(15, 75),
  "claude-opus-4-5": listed(5, 25),
  "claude-opus-4-6": listed(5, 25),
  "claude-opus-4-7": listed(5, 25),
  "claude-opus-4-8": listed(5, 25),
  "claude-opus-5": listed(5, 25),
  "claude-opus-5-5": listed(4, 20, 0.2),
  "claude-fable-5": listed(10, 50),
  "claude-fable-5-1": listed(10, 50, 0.25),
  "claude-mythos-5": listed(10, 50),
  "claude-mythos-5-1": listed(10, 50, 0.25),
};

/**
 * A model's prices in a table: its own id's, or those of the longest id in
 * the table that it starts with followed by `-` (a dated or suffixed id);
 * `undefined` for a model the table does not price.
 *
 * @example
 * ```ts
 * priceOf("claude-haiku-4-5-20251001")?.input; // 1
 * priceOf("claude-sonnet-5-5")?.cacheRead; // 0.1
 * priceOf("my-local-model"); // undefined
 * ```
 */
export const priceOf = (
  model: string,
  table: PriceTable = DEFAULT_PRICES,
): ModelPrice | undefined => {
  const own = table[model];
  if (own !== undefined) return own;
  let best: string | undefined;
  for (const id of Object.keys(table))
    if (model.startsWith(`${id}-`) && (best === undefined || id.length > best.length)) best = id;
  return best === undefined ? undefined : table[best];
};

/**
 * What one step's usage cost in US dollars at a model's prices: input,
 * output, cache reads, and cache writes by TTL (`cacheWrite1hTokens` of the
 * writes at the hour's price, the rest at five minutes').
 *
 * @example
 * ```ts
 * const sonnet = priceOf("claude-sonnet-5-5");
 * if (sonnet) costOf({ inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 20_000 }, sonnet);
 * // 0.002 + 0.002 + 0.002 = 0.006
 * ```
 */
export const costOf = (usage: Usage, price: ModelPrice): number => {
  const { fiveMinutes, hour } = cacheWritesOf(usage);
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      (usage.cacheReadTokens ?? 0) * price.cacheRead +
      fiveMinutes * price.cacheWrite5m +
      hour * price.cacheWrite1h) /
    1_000_000
  );
};
