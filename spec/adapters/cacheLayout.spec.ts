import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toParams } from "../../src/adapters/model/anthropicWire.ts";
import type { Message, ModelRequest } from "../../src/runtime/prompt/model.ts";
import { promptBlocks } from "../../src/testing/promptCache.ts";

type Json = Record<string, unknown>;

const tools = [
  { name: "a_tool", description: "A.", input_schema: { type: "object" } },
  { name: "b_tool", description: "B.", input_schema: { type: "object" }, defer_loading: true },
  { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
];

const requestOf = (messages: ReadonlyArray<Message>): ModelRequest => ({
  model: "claude-sonnet-5-5",
  system: "You help.",
  messages,
  tools,
  maxTokens: 1024,
});

/** Every block that carries a breakpoint, in prompt order, with its TTL. */
const marks = (params: Json): Array<{ at: string; ttl: string }> => {
  const out: Array<{ at: string; ttl: string }> = [];
  const see = (at: string, block: Json) => {
    const control = block.cache_control as Json | undefined;
    if (control !== undefined) out.push({ at, ttl: (control.ttl as string) ?? "5m" });
  };
  for (const [i, t] of ((params.tools as Json[] | undefined) ?? []).entries())
    see(`tools[${i}]`, t);
  for (const [i, b] of ((params.system as Json[] | undefined) ?? []).entries())
    see(`system[${i}]`, b);
  for (const [i, m] of (params.messages as Array<{ content: unknown }>).entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as Json[]).entries()) see(`messages[${i}][${j}]`, b);
  }
  return out;
};

/** A conversation: earlier turns (prompt and answer), this turn's prompt, then tool steps. */
const conversation = fc
  .record({
    earlier: fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })), {
      maxLength: 6,
    }),
    prompt: fc.string({ minLength: 1 }),
    steps: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 5 }),
  })
  .map(({ earlier, prompt, steps }): Message[] => [
    ...earlier.flatMap(([q, a]): Message[] => [
      { role: "user", content: q },
      { role: "assistant", content: a },
    ]),
    { role: "user", content: `<window>note</window>\n\n${prompt}` },
    ...steps.flatMap((calls, s): Message[] => {
      const uses = Array.from({ length: calls }, (_, i) => ({
        type: "tool_use" as const,
        id: `toolu_${s}_${i}`,
        name: "a_tool",
        input: {},
      }));
      return [
        { role: "assistant", content: uses },
        {
          role: "user",
          content: uses.map((u) => ({
            type: "tool_result" as const,
            tool_use_id: u.id,
            content: "ok",
          })),
        },
      ];
    }),
  ]);

describe("the prompt cache's breakpoints", () => {
  it("mark the last loaded tool, the system prompt, the end of the earlier turns and the last message", () => {
    const params = toParams(
      requestOf([
        { role: "user", content: "first" },
        { role: "assistant", content: "answer" },
        { role: "user", content: "<window>note</window>\n\nsecond" },
      ]),
      { ttl: "1h" },
    ) as unknown as Json;
    expect(marks(params)).toEqual([
      { at: "tools[2]", ttl: "1h" },
      { at: "system[0]", ttl: "1h" },
      { at: "messages[1][0]", ttl: "1h" },
      { at: "messages[2][0]", ttl: "5m" },
    ]);
    // The deferred tool holds none: the API refuses a breakpoint on it.
    expect((params.tools as Json[])[1]).not.toHaveProperty("cache_control");
  });

  it("are at most four, one-hour ones first, never on the turn's prompt unless it is the last message, and change nothing else (1 000 runs)", () => {
    fc.assert(
      fc.property(conversation, fc.constantFrom("5m" as const, "1h" as const), (messages, ttl) => {
        const params = toParams(requestOf(messages), { ttl }) as unknown as Json;
        const found = marks(params);
        expect(found.length).toBeLessThanOrEqual(4);
        const firstShort = found.findIndex((m) => m.ttl === "5m");
        if (firstShort >= 0)
          expect(found.slice(firstShort).every((m) => m.ttl === "5m")).toBe(true);
        // The prompt (with its note, which changes every turn) is behind no stable breakpoint.
        const prompt = messages.findLastIndex(
          (m) => m.role === "user" && typeof m.content === "string",
        );
        const onPrompt = found.filter((m) => m.at.startsWith(`messages[${prompt}]`));
        if (prompt !== messages.length - 1) expect(onPrompt).toEqual([]);
        else expect(onPrompt.every((m) => m.ttl === "5m")).toBe(true);
        // Without its marks the prompt is the same prompt, block for block.
        const bare = toParams(requestOf(messages), false) as unknown as Json;
        expect(promptBlocks(params).map((b) => b.key)).toEqual(
          promptBlocks(bare).map((b) => b.key),
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it("are left out entirely when caching is off", () => {
    const params = toParams(requestOf([{ role: "user", content: "hi" }]), false) as unknown as Json;
    expect(marks(params)).toEqual([]);
    expect(params.messages).toEqual([{ role: "user", content: "hi" }]);
  });
});
