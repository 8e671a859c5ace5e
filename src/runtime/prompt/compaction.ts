/**
 * Compaction: when the earlier turns, as the model is sent them, grow past a
 * threshold, a turn first asks the model for a summary of them and sends the
 * summary in their place, the last few turns kept word for word. What the
 * machine sends and what the history fold rebuilds after a restart are made
 * by the same {@link compactedHistory}, so they are the same bytes.
 */
import type { Message } from "./model.ts";
import { estimateJsonTokens } from "./tokens.ts";

/**
 * How much context a conversation keeps before it is made smaller, in
 * estimated tokens: the earlier turns past `compactAbove` are summarised
 * (the last `keepTurns` kept), and a turn's tool results past `clearAbove`
 * are cleared (the last `keepResults` kept); `false` turns either off.
 */
export interface ContextBounds {
  readonly compactAbove: number | false;
  readonly keepTurns: number;
  readonly clearAbove: number | false;
  readonly keepResults: number;
}

/** Bounds that never compact nor clear: a conversation machine given none keeps everything. */
export const KEEP_ALL: ContextBounds = {
  compactAbove: false,
  keepTurns: 0,
  clearAbove: false,
  keepResults: 0,
};

/** What the model is asked for a summary with (words for the model). */
export const SUMMARY_REQUEST =
  "Our conversation is getting long, so the turns above will be replaced by a summary you write now. " +
  "Summarise them for yourself, to carry on from: what I asked, what you found and did " +
  "(with the ids, names, amounts and dates that matter), what was decided, and what is still open. " +
  "Write only the summary, in the language we used, in at most 400 words. Call no tools.";

/** What the summary is introduced with, in the first message the model is sent after it. */
export const SUMMARY_HEAD = "A summary of our earlier conversation, shortened to save space:";

/** The answer that follows the summary, so the messages still alternate. */
export const SUMMARY_ACK = "Understood. I will carry on from that summary.";

/**
 * How many messages a compaction keeps word for word (the last `keepTurns`
 * turns), when the history is due one: estimated over `compactAbove`, with at
 * least one turn before the kept ones to summarise. `undefined`: not due.
 *
 * @example
 * ```ts
 * compactionDue(history, { ...KEEP_ALL, compactAbove: 40_000, keepTurns: 2 }); // 4, or undefined
 * ```
 */
export const compactionDue = (
  history: ReadonlyArray<Message>,
  bounds: ContextBounds,
): number | undefined => {
  if (bounds.compactAbove === false) return undefined;
  const kept = Math.min(history.length, bounds.keepTurns * 2);
  if (history.length - kept < 2) return undefined;
  return estimateJsonTokens(history) > bounds.compactAbove ? kept : undefined;
};

/**
 * The request for a summary: the turns to be summarised (all but the last
 * `kept` messages), then {@link SUMMARY_REQUEST}.
 *
 * @example
 * ```ts
 * const messages = summaryRequest(history, 4); // sent with the turn's tools, to call none
 * ```
 */
export const summaryRequest = (
  history: ReadonlyArray<Message>,
  kept: number,
): ReadonlyArray<Message> => [
  ...history.slice(0, history.length - kept),
  { role: "user", content: SUMMARY_REQUEST },
];

/**
 * The history once compacted: the summary and its answer, then the last
 * `kept` messages as they were.
 *
 * @example
 * ```ts
 * compactedHistory(history, "Ada asked for her overdue invoices; …", 4).length; // 6
 * ```
 */
export const compactedHistory = (
  history: ReadonlyArray<Message>,
  summary: string,
  kept: number,
): ReadonlyArray<Message> => [
  { role: "user", content: `${SUMMARY_HEAD}\n\n${summary}` },
  { role: "assistant", content: SUMMARY_ACK },
  ...history.slice(history.length - Math.min(kept, history.length)),
];
