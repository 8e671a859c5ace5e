/**
 * Compaction and clearing as pure functions (issue 32, item 3): when the
 * history is due a summary and what it becomes, and which of a turn's tool
 * results are cleared. Their properties run 1 000 times each.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLEARED_RESULT, clearedToolResults } from "../../src/runtime/prompt/clearing.ts";
import {
  compactedHistory,
  compactionDue,
  KEEP_ALL,
  SUMMARY_ACK,
  SUMMARY_HEAD,
  SUMMARY_REQUEST,
  summaryRequest,
} from "../../src/runtime/prompt/compaction.ts";
import type { Message, ToolResultBlock } from "../../src/runtime/prompt/model.ts";
import { estimateJsonTokens, estimateTokens } from "../../src/runtime/prompt/tokens.ts";

const turns = (n: number, size = 100): Message[] =>
  Array.from({ length: n }, (_, i) => [
    { role: "user" as const, content: `question ${i} ${"q".repeat(size)}` },
    { role: "assistant" as const, content: `answer ${i} ${"a".repeat(size)}` },
  ]).flat();

describe("compaction", () => {
  it("is due only past its bound, with a turn before the kept ones to summarise", () => {
    const history = turns(10);
    const tokens = estimateJsonTokens(history);
    const bounds = { ...KEEP_ALL, compactAbove: tokens - 1, keepTurns: 2 };
    expect(compactionDue(history, bounds)).toBe(4);
    expect(compactionDue(history, { ...bounds, compactAbove: tokens })).toBeUndefined();
    expect(compactionDue(history, { ...bounds, compactAbove: false })).toBeUndefined();
    // Two turns kept of two: nothing left to summarise, however long they are.
    expect(compactionDue(turns(2, 10_000), { ...bounds, compactAbove: 1 })).toBeUndefined();
    expect(compactionDue(turns(3, 10_000), { ...bounds, compactAbove: 1 })).toBe(4);
  });

  it("asks for a summary of all but the kept turns, and puts it in their place", () => {
    const history = turns(5);
    const asked = summaryRequest(history, 4);
    expect(asked.slice(0, -1)).toEqual(history.slice(0, 6));
    expect(asked.at(-1)).toEqual({ role: "user", content: SUMMARY_REQUEST });
    const compacted = compactedHistory(history, "Ada asked about invoices.", 4);
    expect(compacted).toEqual([
      { role: "user", content: `${SUMMARY_HEAD}\n\nAda asked about invoices.` },
      { role: "assistant", content: SUMMARY_ACK },
      ...history.slice(6),
    ]);
  });

  it("keeps alternating turns and the kept messages word for word (1 000 runs)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 8 }),
        fc.string({ minLength: 1 }),
        (n, keepTurns, summary) => {
          const history = turns(n, 3);
          const kept = compactionDue(history, { ...KEEP_ALL, compactAbove: 1, keepTurns });
          if (kept === undefined) return n - Math.min(n, keepTurns) < 1;
          const out = compactedHistory(history, summary, kept);
          expect(out.map((m) => m.role)).toEqual(
            out.map((_, i) => (i % 2 === 0 ? "user" : "assistant")),
          );
          expect(out.slice(2)).toEqual(history.slice(history.length - kept));
          return out.length === 2 + kept && kept % 2 === 0;
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

/** A turn of `n` tool steps: the question, then each step's call and its result of `size` characters. */
const toolTurn = (n: number, size: number): Message[] => [
  { role: "user", content: "Tidy up every customer." },
  ...Array.from({ length: n }, (_, i) => [
    {
      role: "assistant" as const,
      content: [{ type: "tool_use", id: `t${i}`, name: "customers_show", input: { id: i } }],
    },
    {
      role: "user" as const,
      content: [{ type: "tool_result", tool_use_id: `t${i}`, content: `${i}:${"r".repeat(size)}` }],
    },
  ]).flat(),
];

const resultsOf = (messages: ReadonlyArray<Message>) =>
  messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.filter((b): b is ToolResultBlock => b.type === "tool_result"),
  );

describe("clearing a turn's tool results", () => {
  it("clears all but the last ones kept once over the bound, never the last message's", () => {
    const messages = toolTurn(8, 4_000);
    const bounds = { clearAbove: 5_000, keepResults: 3 };
    const due = clearedToolResults(messages, 0, bounds);
    expect(due?.cleared).toBe(4); // 7 results before the last message, 3 of them kept
    const results = resultsOf(due?.messages ?? []);
    expect(results.map((r) => r.content === CLEARED_RESULT)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(due?.tokens).toBe(4 * estimateTokens(`0:${"r".repeat(4_000)}`));
    // The calls stay as they were, and nothing else changed.
    expect(due?.messages.filter((m) => m.role === "assistant")).toEqual(
      messages.filter((m) => m.role === "assistant"),
    );
    // Cleared once, nothing more is due until new results pass the bound again.
    expect(clearedToolResults(due?.messages ?? [], 0, bounds)).toBeUndefined();
  });

  it("clears nothing under the bound, when turned off, or before the turn", () => {
    const messages = toolTurn(8, 4_000);
    expect(
      clearedToolResults(messages, 0, { clearAbove: 1_000_000, keepResults: 3 }),
    ).toBeUndefined();
    expect(clearedToolResults(messages, 0, { clearAbove: false, keepResults: 0 })).toBeUndefined();
    // From past the last message, the turn has no results of its own.
    expect(
      clearedToolResults(messages, messages.length, { clearAbove: 1, keepResults: 0 }),
    ).toBeUndefined();
  });

  it("never touches the last message nor anything but tool results, and leaves the kept ones whole (1 000 runs)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.integer({ min: 1, max: 20_000 }),
        fc.integer({ min: 0, max: 5 }),
        (n, size, clearAbove, keepResults) => {
          const messages = toolTurn(n, size);
          const due = clearedToolResults(messages, 0, { clearAbove, keepResults });
          if (due === undefined) return true;
          expect(due.messages.length).toBe(messages.length);
          expect(due.messages.at(-1)).toEqual(messages.at(-1));
          const before = resultsOf(messages);
          const after = resultsOf(due.messages);
          const clearedAt = after.flatMap((r, i) => (r.content === CLEARED_RESULT ? [i] : []));
          // The cleared ones are the oldest: none after one kept whole.
          expect(clearedAt).toEqual(clearedAt.map((_, i) => i));
          expect(after.length - clearedAt.length).toBeGreaterThanOrEqual(
            Math.min(keepResults + 1, after.length),
          );
          after.forEach((r, i) => {
            if (r.content !== CLEARED_RESULT) expect(r).toEqual(before[i]);
            else expect(r.tool_use_id).toBe(before[i]?.tool_use_id);
          });
          return due.cleared === clearedAt.length;
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
