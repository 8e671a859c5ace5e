import { describe, expect, it } from "vitest";
import {
  CacheRequestError,
  minimumCacheable,
  promptBlocks,
  promptCache,
} from "../../src/testing/promptCache.ts";

/** A text of about `tokens` estimated tokens (four bytes each). */
const words = (tokens: number, seed = "a"): string => seed.repeat(tokens * 4);
const mark = { type: "ephemeral" } as const;
const markHour = { type: "ephemeral", ttl: "1h" } as const;

const request = (extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 100,
  system: [{ type: "text", text: words(1_200), cache_control: mark }],
  messages: [{ role: "user", content: "Hello" }],
  ...extra,
});

describe("the stand-in's prompt cache", () => {
  it("writes a prefix at its breakpoint, then reads it, and counts the rest as input", () => {
    let now = 0;
    const cache = promptCache({ now: () => now });
    const first = cache.usage(request());
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThanOrEqual(1_200);
    expect(first.cache_creation.ephemeral_5m_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(first.input_tokens).toBeGreaterThan(0);
    now = 60_000;
    const second = cache.usage(request());
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBe(first.input_tokens);
  });

  it("lets a five-minute entry expire, and refreshes it on each read", () => {
    let now = 0;
    const cache = promptCache({ now: () => now });
    cache.usage(request());
    now = 4 * 60_000;
    expect(cache.usage(request()).cache_read_input_tokens).toBeGreaterThan(0);
    now = 8 * 60_000; // 4 minutes after the read that refreshed it
    expect(cache.usage(request()).cache_read_input_tokens).toBeGreaterThan(0);
    now = 14 * 60_000;
    const late = cache.usage(request());
    expect(late.cache_read_input_tokens).toBe(0);
    expect(late.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("keeps a one-hour entry for the hour and reports it as such", () => {
    let now = 0;
    const cache = promptCache({ now: () => now });
    const hour = request({
      system: [{ type: "text", text: words(1_200), cache_control: markHour }],
    });
    expect(cache.usage(hour).cache_creation.ephemeral_1h_input_tokens).toBeGreaterThan(0);
    now = 50 * 60_000;
    expect(cache.usage(hour).cache_read_input_tokens).toBeGreaterThan(0);
  });

  it("caches nothing under the model's minimum", () => {
    const cache = promptCache({ now: () => 0 });
    const short = request({ system: [{ type: "text", text: words(100), cache_control: mark }] });
    expect(cache.usage(short).cache_creation_input_tokens).toBe(0);
    expect(cache.usage(short).cache_read_input_tokens).toBe(0);
    expect(minimumCacheable("claude-haiku-4-5")).toBe(4_096);
    expect(minimumCacheable("claude-opus-5")).toBe(512);
    expect(minimumCacheable("claude-sonnet-5-5")).toBe(1_024);
  });

  it("reads an earlier breakpoint's prefix within 20 positions back, not beyond", () => {
    const cache = promptCache({ now: () => 0 });
    const turn = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        role: i % 2 === 0 ? "user" : "assistant",
        content: `message ${i}`,
      }));
    const at = (messages: Array<{ role: string; content: unknown }>) => {
      const last = messages.at(-1) as { role: string; content: unknown };
      return request({
        messages: [
          ...messages.slice(0, -1),
          { role: last.role, content: [{ type: "text", text: last.content, cache_control: mark }] },
        ],
      });
    };
    const written = cache.usage(at(turn(4)));
    // 10 messages later (positions 5..14 after it): the prefix of 4 is found.
    const near = cache.usage(at(turn(14)));
    expect(near.cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
    // 30 messages later: too far back, only the system prompt's own breakpoint is read.
    const far = cache.usage(at(turn(45)));
    expect(far.cache_read_input_tokens).toBeLessThan(near.cache_read_input_tokens);
  });

  it("counts a run of tool_result blocks as one position of the lookback", () => {
    const cache = promptCache({ now: () => 0 });
    const first = request({
      messages: [{ role: "user", content: [{ type: "text", text: "go", cache_control: mark }] }],
    });
    const written = cache.usage(first);
    const calls = Array.from({ length: 30 }, (_, i) => ({
      type: "tool_use",
      id: `t${i}`,
      name: "x",
      input: {},
    }));
    const results = calls.map((c, i) => ({
      type: "tool_result",
      tool_use_id: c.id,
      content: "ok",
      ...(i === calls.length - 1 ? { cache_control: mark } : {}),
    }));
    const later = cache.usage(
      request({
        messages: [
          { role: "user", content: [{ type: "text", text: "go" }] },
          { role: "assistant", content: calls },
          { role: "user", content: results },
        ],
      }),
    );
    // 60 blocks back, but two runs: three positions.
    expect(later.cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
  });

  it("leaves deferred tools out of the prefix and counts a loaded one where it is referenced", () => {
    const tool = (name: string, defer: boolean) => ({
      name,
      description: words(50, name[0]),
      input_schema: { type: "object" },
      ...(defer ? { defer_loading: true } : {}),
    });
    const body = {
      tools: [tool("alpha", true), tool("beta", true), tool("search", false)],
      messages: [
        {
          role: "assistant",
          content: [
            {
              type: "tool_search_tool_result",
              tool_use_id: "srvtoolu_1",
              content: {
                type: "tool_search_tool_search_result",
                tool_references: [{ type: "tool_reference", tool_name: "alpha" }],
              },
            },
          ],
        },
      ],
    };
    const blocks = promptBlocks(body);
    expect(blocks.filter((b) => b.key.startsWith("tool "))).toHaveLength(1);
    const reference = blocks.at(-1) as { tokens: number };
    expect(reference.tokens).toBeGreaterThan(50);
    expect(() =>
      promptBlocks({ tools: [{ ...tool("alpha", true), cache_control: mark }], messages: [] }),
    ).toThrow(CacheRequestError);
  });

  it("refuses a fifth breakpoint and a one-hour one after a five-minute one, as the API does", () => {
    const cache = promptCache({ now: () => 0 });
    const five = Array.from({ length: 5 }, () => ({
      type: "text",
      text: "x",
      cache_control: mark,
    }));
    expect(() => cache.usage(request({ system: five }))).toThrow(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
    expect(() =>
      cache.usage(
        request({
          system: [
            { type: "text", text: "x", cache_control: mark },
            { type: "text", text: "y", cache_control: markHour },
          ],
        }),
      ),
    ).toThrow(/ttl='1h'/);
  });

  it("ignores where a breakpoint sits when matching: the same prompt with the mark moved still hits", () => {
    const cache = promptCache({ now: () => 0 });
    const system = [{ type: "text", text: words(1_200) }];
    cache.usage(request({ system: [{ ...system[0], cache_control: mark }] }));
    const moved = cache.usage(
      request({
        system,
        messages: [
          { role: "user", content: [{ type: "text", text: "Hello", cache_control: mark }] },
        ],
      }),
    );
    expect(moved.cache_read_input_tokens).toBeGreaterThan(1_000);
  });

  it("keeps at most maxEntries prefixes", () => {
    const cache = promptCache({ now: () => 0, maxEntries: 3 });
    for (let i = 0; i < 10; i++) {
      cache.usage(
        request({ system: [{ type: "text", text: words(1_200, String(i)), cache_control: mark }] }),
      );
    }
    expect(cache.size()).toBe(3);
  });
});
