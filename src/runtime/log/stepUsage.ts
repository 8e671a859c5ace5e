/**
 * What one model step used, as its `StepFinished` records it, and what that
 * counts against a conversation's budget: the tokens at their cost.
 */
import { Schema } from "effect";
import { Int } from "./eventBase.ts";

/**
 * Token counts of one model step, as its `StepFinished` records them; cache
 * reads and writes only when the model's API tells them.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const used = Schema.decodeUnknownSync(Usage)({ inputTokens: 1200, outputTokens: 85 });
 * ```
 */
export const Usage = Schema.Struct({
  inputTokens: Int,
  outputTokens: Int,
  cacheReadTokens: Schema.optional(Int),
  cacheWriteTokens: Schema.optional(Int),
  /** Of `cacheWriteTokens`, those written with the one-hour TTL (the rest had five minutes). */
  cacheWrite1hTokens: Schema.optional(Int),
  /** Calls the API ran itself this step (tool search, code execution, web search): none when absent. */
  serverToolUses: Schema.optional(Int),
});
export type Usage = typeof Usage.Type;

/**
 * The tokens a step used against a conversation's budget, counted at what
 * they cost: input and output whole, a token read from the prompt cache as a
 * tenth (its price), one written to it as 1.25 (2 with the one-hour TTL),
 * rounded up. So a catalog and a history the cache holds count a tenth of
 * their size on every step after the first.
 *
 * @example
 * ```ts
 * tokensOf({ inputTokens: 200, outputTokens: 50, cacheReadTokens: 10_000, cacheWriteTokens: 400 });
 * // 200 + 50 + 1 000 + 500 = 1 750
 * ```
 */
export const tokensOf = (usage: Usage): number => {
  const { fiveMinutes, hour } = cacheWritesOf(usage);
  return (
    usage.inputTokens +
    usage.outputTokens +
    Math.ceil((usage.cacheReadTokens ?? 0) * CACHE_READ_WEIGHT) +
    Math.ceil(fiveMinutes * CACHE_WRITE_WEIGHT + hour * CACHE_WRITE_1H_WEIGHT)
  );
};

/** A step's cache writes by lifetime: those of the hour (never more than all of them), the rest of five minutes. */
export const cacheWritesOf = (
  usage: Usage,
): { readonly fiveMinutes: number; readonly hour: number } => {
  const written = usage.cacheWriteTokens ?? 0;
  const hour = Math.min(written, usage.cacheWrite1hTokens ?? 0);
  return { fiveMinutes: written - hour, hour };
};

/** A step's whole input, read from the cache, written to it or neither: how much the model read. */
export const inputOf = (usage: Usage): number =>
  usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);

/** What a token read from the prompt cache counts against the budget: its price, a tenth of an input token's. */
export const CACHE_READ_WEIGHT = 0.1;
/** What a token written to the cache with the five-minute TTL counts: 1.25 input tokens. */
export const CACHE_WRITE_WEIGHT = 1.25;
/** What a token written with the one-hour TTL counts: 2 input tokens. */
export const CACHE_WRITE_1H_WEIGHT = 2;
