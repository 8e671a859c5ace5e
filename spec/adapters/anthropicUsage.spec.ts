/**
 * Issue 32, item 5: what `anthropic()` reads of a message's usage beside the
 * tokens: the model that answered, as the API names it (a dated id is
 * priced as its family), and the calls the API ran itself (its
 * `server_tool_use` blocks: tool search, code execution).
 */
import { describe, expect, it } from "vitest";
import { toResponse } from "../../src/adapters/model/anthropicWire.ts";

const message = (content: unknown[], more: Record<string, unknown> = {}) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-5-5-20261001",
  content,
  stop_reason: "end_turn",
  usage: { input_tokens: 120, output_tokens: 30 },
  ...more,
});

describe("the usage anthropic() reads", () => {
  it("names the model that answered", () => {
    expect(toResponse(message([{ type: "text", text: "Hi." }])).model).toBe(
      "claude-sonnet-5-5-20261001",
    );
    expect(toResponse(message([], { model: undefined })).model).toBeUndefined();
  });

  it("counts the API's own tool calls, and says none when there were none", () => {
    const searched = toResponse(
      message([
        {
          type: "server_tool_use",
          id: "srvtoolu_1",
          name: "tool_search_tool_bm25",
          input: { query: "invoices" },
        },
        {
          type: "tool_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: { type: "tool_search_tool_search_result", tool_references: [] },
        },
        { type: "server_tool_use", id: "srvtoolu_2", name: "code_execution", input: { code: "1" } },
        { type: "text", text: "Found them." },
      ]),
    );
    expect(searched.usage.serverToolUses).toBe(2);
    expect(toResponse(message([{ type: "text", text: "Hi." }])).usage).toEqual({
      inputTokens: 120,
      outputTokens: 30,
    });
  });
});
