/**
 * The events that make a conversation's context smaller: a summary of the
 * earlier turns, and tool results cleared within a turn. The history fold
 * reads `Compacted`, so a window rebuilt from its log after a restart sends
 * the model the same messages the window before it did.
 */
import { Schema } from "effect";
import { base, Int } from "./eventBase.ts";

/**
 * The earlier turns were summarised: from now on the model is sent `summary`
 * in their place, then the last `kept` messages of the history word for
 * word. The summary request's tokens are the turn's `StepFinished` of step 0.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * if (Schema.is(Compacted)(e)) showNotice("Earlier messages were summarised to keep the conversation going.");
 * ```
 */
export const Compacted = Schema.TaggedStruct("Compacted", {
  ...base,
  summary: Schema.String,
  kept: Int,
});

/**
 * A turn's older tool results were cleared from what the model is sent:
 * `cleared` more of them, about `tokens` estimated tokens, before `step`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const freed = log.filter(Schema.is(ToolResultsCleared)).reduce((n, e) => n + e.tokens, 0);
 * ```
 */
export const ToolResultsCleared = Schema.TaggedStruct("ToolResultsCleared", {
  ...base,
  step: Int,
  cleared: Int,
  tokens: Int,
});
