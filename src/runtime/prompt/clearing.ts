/**
 * Clearing within a turn: when the tool results a turn has gathered grow
 * past a threshold, the older ones are replaced, in what the model is sent
 * from then on, by a line saying they were cleared. The calls stay, so the
 * model knows what it did; the latest results stay whole, and so does the
 * last message (results the model has not read yet).
 */
import type { ContextBounds } from "./compaction.ts";
import type { ContentBlock, Message, ToolResultBlock } from "./model.ts";
import { estimateJsonTokens, estimateTokens } from "./tokens.ts";

/** What a cleared tool result says instead (words for the model). */
export const CLEARED_RESULT =
  "[This result was cleared to save space. It was read earlier in this turn; call the tool again if it is needed.]";

/** What a clearing did: the messages to send, how many results it cleared, and their estimated tokens. */
export interface Cleared {
  readonly messages: ReadonlyArray<Message>;
  readonly cleared: number;
  readonly tokens: number;
}

const isResult = (block: ContentBlock): block is ToolResultBlock => block.type === "tool_result";

/** A result's estimated tokens: its text, or the JSON of blocks a result may hold instead. */
const tokensOf = (content: unknown): number =>
  typeof content === "string" ? estimateTokens(content) : estimateJsonTokens(content);

/**
 * The turn's messages with its older tool results cleared, when the results
 * not cleared yet (from message `from`, where the turn began) are estimated
 * over `clearAbove`: all but the last `keepResults` of the results before
 * the last message (whose results the model has not read yet, and which
 * stay whole). `undefined` when nothing is due.
 *
 * @example
 * ```ts
 * const due = clearedToolResults(messages, turnStart, { ...KEEP_ALL, clearAbove: 20_000, keepResults: 3 });
 * if (due) send(due.messages);
 * ```
 */
export const clearedToolResults = (
  messages: ReadonlyArray<Message>,
  from: number,
  bounds: Pick<ContextBounds, "clearAbove" | "keepResults">,
): Cleared | undefined => {
  if (bounds.clearAbove === false) return undefined;
  /** Every tool result of the turn before its last message, as [message, block] positions. */
  const results: Array<readonly [number, number]> = [];
  let uncleared = 0;
  for (let m = from; m < messages.length; m++) {
    const content = messages[m]?.content;
    if (typeof content === "string" || content === undefined) continue;
    content.forEach((block, b) => {
      if (!isResult(block)) return;
      if (block.content !== CLEARED_RESULT) uncleared += tokensOf(block.content);
      if (m < messages.length - 1) results.push([m, b]);
    });
  }
  if (uncleared <= bounds.clearAbove) return undefined;
  const due = results.slice(0, Math.max(0, results.length - bounds.keepResults));
  const out = messages.slice();
  let cleared = 0;
  let tokens = 0;
  for (const [m, b] of due) {
    const message = out[m] as Message;
    const content = message.content as ReadonlyArray<ContentBlock>;
    const block = content[b] as ToolResultBlock;
    if (block.content === CLEARED_RESULT) continue;
    cleared += 1;
    tokens += tokensOf(block.content);
    const next = content.slice();
    next[b] = { ...block, content: CLEARED_RESULT };
    out[m] = { ...message, content: next };
  }
  return cleared === 0 ? undefined : { messages: out, cleared, tokens };
};
