/**
 * Tool search in a turn's tools (issue 32): off, on, or by the number of
 * tools offered and the estimated tokens of their definitions; every client
 * tool deferred and nothing else, the tool search tool last, the order kept.
 */
import { Schema } from "effect";
import {
  type AnyCommand,
  type AssistantOptions,
  createApp,
  defineCommand,
  offered,
} from "elyra-assistant";
import { describe, expect, it } from "vitest";
import { scriptEvents, toolCallsOf } from "../../src/runtime/prompt/codeScripts.ts";
import type { ClientTool, ModelTool } from "../../src/runtime/prompt/model.ts";
import { requestTools } from "../../src/runtime/prompt/requestTools.ts";
import { estimateJsonTokens } from "../../src/runtime/prompt/tokens.ts";
import {
  searchesTools,
  toolSearchName,
  withToolSearch,
} from "../../src/runtime/prompt/toolSearch.ts";

const command = (name: string, description = `Does ${name}.`): AnyCommand =>
  defineCommand({
    name,
    description,
    can: `things.${name}`,
    args: { id: Schema.Number },
    run: () => null,
  });

/** `n` commands, named so their order by name is their order here. */
const commands = (n: number, description?: (i: number) => string): AnyCommand[] =>
  Array.from({ length: n }, (_, i) =>
    command(`tool_${String(i).padStart(3, "0")}`, description?.(i)),
  );

const turnTools = (
  list: ReadonlyArray<AnyCommand>,
  settings: Omit<AssistantOptions, "allow"> = {},
): { readonly tools: ReadonlyArray<ModelTool>; readonly plain: ReadonlyArray<ModelTool> } => {
  const app = createApp({
    commands: list,
    userAbilities: () => ["*"],
    assistant: { allow: ["*"], ...settings },
  });
  const assistant = app.assistant;
  if (assistant === undefined) throw new Error("no assistant");
  const plain = requestTools(assistant, offered(app, "assistant", { name: "Ada" }));
  return { tools: withToolSearch(assistant, plain), plain };
};

const deferred = (tools: ReadonlyArray<ModelTool>) =>
  tools.filter((t) => (t as ClientTool).defer_loading === true).map((t) => t.name);

const BM25 = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };

describe("withToolSearch", () => {
  it('"auto" (the default) leaves 30 tools as they are, and defers 31 with the search tool last', () => {
    const thirty = turnTools(commands(30));
    expect(thirty.tools).toBe(thirty.plain);
    expect(deferred(thirty.tools)).toEqual([]);

    const { tools, plain } = turnTools(commands(31));
    expect(tools).toHaveLength(32);
    expect(tools.at(-1)).toEqual(BM25);
    expect(deferred(tools)).toEqual(plain.map((t) => t.name));
    expect(tools.slice(0, -1)).toEqual(plain.map((t) => ({ ...t, defer_loading: true })));
  });

  it('"auto" defers a few tools whose definitions are estimated over toolSearchAboveTokens', () => {
    const long = (i: number) =>
      `Tool ${i}. ${"It does a great many things, at length. ".repeat(400)}`;
    const few = turnTools(commands(3, long));
    expect(estimateJsonTokens(few.plain)).toBeGreaterThan(10_000);
    expect(few.tools.at(-1)).toEqual(BM25);
    expect(deferred(few.tools)).toHaveLength(3);

    const raised = turnTools(commands(3, long), { toolSearchAboveTokens: 100_000 });
    expect(raised.tools).toBe(raised.plain);
    const lowered = turnTools(commands(3), { toolSearchAboveTokens: 10 });
    expect(deferred(lowered.tools)).toHaveLength(3);
    const byCount = turnTools(commands(3), { toolSearchAboveTools: 2 });
    expect(deferred(byCount.tools)).toHaveLength(3);
  });

  it("true defers even one tool; false never defers, however many", () => {
    const one = turnTools(commands(1), { toolSearch: true });
    expect(one.tools).toEqual([{ ...one.plain[0], defer_loading: true }, BM25]);
    const many = turnTools(commands(200), { toolSearch: false });
    expect(many.tools).toBe(many.plain);
  });

  it("with no tool offered there is nothing to search: no search tool", () => {
    const none = turnTools([], { toolSearch: true });
    expect(none.tools).toEqual([]);
  });

  it("sends the regex variant when asked, named by its type", () => {
    const { tools } = turnTools(commands(2), {
      toolSearch: true,
      toolSearchTool: "tool_search_tool_regex_20251119",
    });
    expect(tools.at(-1)).toEqual({
      type: "tool_search_tool_regex_20251119",
      name: "tool_search_tool_regex",
    });
    expect(toolSearchName("tool_search_tool_bm25_20260101")).toBe("tool_search_tool_bm25");
  });

  it("code mode: the client tools deferred (allowed_callers kept), code execution not, then the search tool", () => {
    const { tools, plain } = turnTools(commands(40), { codeMode: true });
    expect(tools.map((t) => t.name).slice(-2)).toEqual(["code_execution", "tool_search_tool_bm25"]);
    expect(tools.at(-2)).toEqual({ type: "code_execution_20260120", name: "code_execution" });
    const own = tools.slice(0, -2) as ReadonlyArray<ClientTool>;
    expect(own.every((t) => t.defer_loading === true)).toBe(true);
    expect(own.every((t) => t.allowed_callers?.includes("code_execution_20260120"))).toBe(true);
    expect(deferred(tools)).toEqual(plain.slice(0, -1).map((t) => t.name));
  });

  it("keeps the catalog's order and changes nothing it is given; the same tools give the same request", () => {
    const list = commands(35).reverse();
    const first = turnTools(list);
    const names = first.tools.map((t) => t.name);
    expect(names.slice(0, -1)).toEqual([...names.slice(0, -1)].sort());
    expect(first.plain.some((t) => "defer_loading" in t)).toBe(false);
    expect(JSON.stringify(turnTools(list).tools)).toBe(JSON.stringify(first.tools));
  });

  it("searchesTools counts only the app's own tools, not server tools", () => {
    const settings = {
      toolSearch: "auto",
      toolSearchAboveTools: 1,
      toolSearchAboveTokens: 10_000,
      toolSearchTool: BM25.type,
    } as const;
    const own: ClientTool = { name: "a", description: "A.", input_schema: { type: "object" } };
    const code = { type: "code_execution_20260120", name: "code_execution" };
    expect(searchesTools(settings, [own, code])).toBe(false);
    expect(searchesTools(settings, [own, { ...own, name: "b" }])).toBe(true);
    expect(searchesTools({ ...settings, toolSearch: true }, [code])).toBe(false);
  });
});

describe("a search in a response", () => {
  it("is neither a tool call nor a script: only the tool_use after it is run", () => {
    const content = [
      {
        type: "server_tool_use",
        id: "srvtoolu_1",
        name: "tool_search_tool_bm25",
        input: { query: "x" },
      },
      {
        type: "tool_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: {
          type: "tool_search_tool_search_result",
          tool_references: [{ type: "tool_reference", tool_name: "tool_001" }],
        },
      },
      {
        type: "tool_use",
        id: "toolu_1",
        name: "tool_001",
        input: { id: 1 },
        caller: { type: "direct" },
      },
    ];
    const response = {
      content,
      stopReason: "tool_use",
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    expect(toolCallsOf(response).map((call) => call.id)).toEqual(["toolu_1"]);
    expect(scriptEvents(content, 1, {})).toEqual([]);
  });
});

describe("the settings", () => {
  it("createApp fills the defaults and refuses a tool search tool of another kind", () => {
    const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
    expect(app.assistant).toMatchObject({
      toolSearch: "auto",
      toolSearchAboveTools: 30,
      toolSearchAboveTokens: 10_000,
      toolSearchTool: "tool_search_tool_bm25_20251119",
    });
    const make = (assistant: unknown) => () =>
      createApp({ commands: [], userAbilities: () => [], assistant: assistant as never });
    expect(make({ allow: [], toolSearchTool: "tool_search_tool_embeddings_20251119" })).toThrow(
      /^createApp: assistant\.toolSearchTool: /,
    );
    expect(make({ allow: [], toolSearch: "always" })).toThrow(
      /^createApp: assistant\.toolSearch: /,
    );
    expect(make({ allow: [], toolSearchAboveTools: -1 })).toThrow(
      /^createApp: assistant\.toolSearchAboveTools: /,
    );
  });
});
