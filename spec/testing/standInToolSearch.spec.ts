/**
 * Tool search played by the stand-in Messages API (spoken to with plain
 * fetch, whole and streamed) and by the fake model (issue 32): a reply's
 * `searchTools` over the request's deferred tools, the blocks the API sends
 * for it, the API's refusals, and the refusal of a script that calls a
 * deferred tool no search loaded.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isModelError, type ModelRequest } from "../../src/runtime/prompt/model.ts";
import { searchTools, termsOf } from "../../src/testing/standInToolSearch.ts";
import {
  fakeModel,
  type ScriptedResponse,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
  toolCall,
} from "../../src/testing.ts";

const headers = {
  "content-type": "application/json",
  authorization: "Bearer test-key",
  "anthropic-version": "2026-10-21",
};

const tool = (name: string, description: string, args: Record<string, string> = {}) => ({
  name,
  description,
  input_schema: {
    type: "object",
    properties: Object.fromEntries(
      Object.entries(args).map(([arg, about]) => [arg, { type: "string", description: about }]),
    ),
  },
  defer_loading: true,
});

const customersShow = tool("customers_show", "Show one customer by id.", { id: "The customer." });
const invoicesIndex = tool("invoices_index", "List invoices; only the overdue ones if asked.", {
  overdue: "Only the invoices past their due date.",
});
const projectsArchive = tool("projects_archive", "Archive a project.", {
  reason: "Why, such as a lapsed contract.",
});
const BM25 = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };
const REGEX = { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" };
const deferredTools = [customersShow, invoicesIndex, projectsArchive];

const bodyWith = (more: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-5-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Which invoices are overdue?" }],
  tools: [...deferredTools, BM25],
  ...more,
});

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const post = async (payload: unknown) => {
  const response = await fetch(`${api?.url}/v1/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify(payload),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

const played = async (script: ScriptedResponse[], payload: unknown = bodyWith()) => {
  api = await standInMessagesApi(script);
  return post(payload);
};

type Block = Record<string, unknown> & { type: string };

const references = (block: Block | undefined): string[] => {
  const content = (block?.content ?? {}) as { tool_references?: Array<{ tool_name: string }> };
  return (content.tool_references ?? []).map((r) => r.tool_name);
};

describe("the stand-in plays a tool search", () => {
  it("whole: the search's server_tool_use and result come before the call, with one id", async () => {
    const { status, text } = await played([
      toolCall("invoices_index", { overdue: true }, { searchTools: "overdue invoices" }),
    ]);
    expect(status).toBe(200);
    const message = JSON.parse(text) as { content: Block[]; stop_reason: string };
    expect(message.content.map((b) => b.type)).toEqual([
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ]);
    const [use, result] = message.content as [Block, Block];
    expect(use).toEqual({
      type: "server_tool_use",
      id: expect.stringMatching(/^srvtoolu_/),
      name: "tool_search_tool_bm25",
      input: { query: "overdue invoices" },
    });
    expect(result).toEqual({
      type: "tool_search_tool_result",
      tool_use_id: use.id,
      content: {
        type: "tool_search_tool_search_result",
        tool_references: [{ type: "tool_reference", tool_name: "invoices_index" }],
      },
    });
    expect(message.stop_reason).toBe("tool_use");
  });

  it("streamed: the server_tool_use starts without input and streams it; the result comes whole at its start", async () => {
    const { text } = await played(
      [says("Found it.", { searchTools: "archive a project", blockSplitAt: [5] })],
      bodyWith({ stream: true }),
    );
    const events = text
      .split("\n\n")
      .filter((chunk) => chunk !== "")
      .map((chunk) => JSON.parse(chunk.split("\n")[1]?.slice("data: ".length) ?? "{}"));
    const at = (index: number) => events.filter((e) => e.index === index);
    const [start, ...deltas] = at(1);
    expect(start).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: {
        type: "server_tool_use",
        id: expect.stringMatching(/^srvtoolu_/),
        name: "tool_search_tool_bm25",
        input: {},
      },
    });
    const pieces = deltas
      .filter((e) => e.type === "content_block_delta")
      .map((e) => e.delta.partial_json);
    expect(pieces).toEqual(["", '{"que', 'ry":"archive a project"}']);
    expect(at(2)).toEqual([
      {
        type: "content_block_start",
        index: 2,
        content_block: {
          type: "tool_search_tool_result",
          tool_use_id: start.content_block.id,
          content: {
            type: "tool_search_tool_search_result",
            tool_references: [{ type: "tool_reference", tool_name: "projects_archive" }],
          },
        },
      },
      { type: "content_block_stop", index: 2 },
    ]);
    expect(at(0)[0]?.content_block).toEqual({ type: "text", text: "" });
  });

  it("regex: a case-insensitive pattern over names, descriptions and arguments; a bad one is invalid_tool_input", async () => {
    const { text } = await played([says("Two.", { searchTools: "^(INVOICES|customers)_" })], {
      ...bodyWith(),
      tools: [...deferredTools, REGEX],
    });
    const [use, result] = (JSON.parse(text) as { content: Block[] }).content.slice(1) as [
      Block,
      Block,
    ];
    expect(use).toMatchObject({
      name: "tool_search_tool_regex",
      input: { pattern: "^(INVOICES|customers)_" },
    });
    expect(references(result)).toEqual(["customers_show", "invoices_index"]);

    expect(searchTools(deferredTools, "regex", "lapsed")).toMatchObject({
      tool_references: [{ tool_name: "projects_archive" }],
    });
    expect(searchTools(deferredTools, "regex", "(")).toEqual({
      type: "tool_search_tool_result_error",
      error_code: "invalid_tool_input",
      error_message: expect.stringMatching(/^Invalid regular expression pattern: /),
    });
    expect(searchTools(deferredTools, "regex", "a".repeat(201))).toMatchObject({
      error_code: "invalid_tool_input",
      error_message: "Pattern is longer than 200 characters",
    });
    expect(searchTools(deferredTools, "regex", "a".repeat(200))).toMatchObject({
      type: "tool_search_tool_search_result",
    });
  });

  it("BM25: reads arguments too, ranks the best first, returns five at most, nothing for no match", () => {
    expect(termsOf("customerId customers_show Invoices")).toEqual([
      "customer",
      "id",
      "customer",
      "show",
      "invoice",
    ]);
    expect(searchTools(deferredTools, "bm25", "past due date")).toMatchObject({
      tool_references: [{ tool_name: "invoices_index" }],
    });
    const many = Array.from({ length: 8 }, (_, i) =>
      tool(
        `reports_${i}`,
        i === 6 ? "A report of invoices, invoices, invoices." : "A report of invoices.",
      ),
    );
    const found = searchTools(many, "bm25", "invoices report");
    expect(found.type === "tool_search_tool_search_result" && found.tool_references).toHaveLength(
      5,
    );
    expect(references({ type: "x", content: found })[0]).toBe("reports_6");
    expect(searchTools(many, "bm25", "weather")).toEqual({
      type: "tool_search_tool_search_result",
      tool_references: [],
    });
    expect(searchTools(many, "bm25", "x".repeat(501))).toMatchObject({
      error_code: "invalid_tool_input",
    });
  });

  it("searches only the deferred tools the request has", async () => {
    const loadedAlready = { ...invoicesIndex, defer_loading: false };
    const { text } = await played([says("None.", { searchTools: "invoices" })], {
      ...bodyWith(),
      tools: [customersShow, loadedAlready, BM25],
    });
    expect(references((JSON.parse(text) as { content: Block[] }).content[2])).toEqual([]);
  });
});

describe("the stand-in refuses as the API does, using no script entry", () => {
  const refusedThen = async (payload: unknown, message: string | RegExp) => {
    const first = await played([says("Fine.")], payload);
    expect(first.status).toBe(400);
    expect(JSON.parse(first.text)).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(message) },
    });
    expect((await post(bodyWith())).status).toBe(200);
  };

  it("every tool deferred", async () => {
    await refusedThen(
      { ...bodyWith(), tools: deferredTools },
      /^At least one tool must have defer_loading=false\. All tools cannot be deferred\.$/,
    );
  });

  it("a tool_reference naming a tool the request does not have, in a search result or a tool_result", async () => {
    const search = (name: string) => ({
      type: "tool_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: {
        type: "tool_search_tool_search_result",
        tool_references: [{ type: "tool_reference", tool_name: name }],
      },
    });
    await refusedThen(
      bodyWith({
        messages: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: [search("admin_reindex")] },
          { role: "user", content: "Go on" },
        ],
      }),
      /^Tool reference 'admin_reindex' not found in available tools$/,
    );
    await api?.close();
    await refusedThen(
      bodyWith({
        messages: [
          { role: "user", content: "Hi" },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_1", name: "find_tools", input: {} }],
          },
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "toolu_1",
                content: [{ type: "tool_reference", tool_name: "payroll_run" }],
              },
            ],
          },
        ],
      }),
      /^Tool reference 'payroll_run' not found in available tools$/,
    );
  });

  it("a tool_result answering the search's srvtoolu_ id", async () => {
    await refusedThen(
      bodyWith({
        messages: [
          { role: "user", content: "Hi" },
          {
            role: "assistant",
            content: [
              {
                type: "server_tool_use",
                id: "srvtoolu_9",
                name: "tool_search_tool_bm25",
                input: { query: "x" },
              },
            ],
          },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "srvtoolu_9", content: "[]" }],
          },
        ],
      }),
      /^messages\.2\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: srvtoolu_9\./,
    );
  });
});

describe("a script that cannot be played is a 500, not retried", () => {
  it("a searchTools when the request has no tool search tool", async () => {
    const {
      status,
      headers: sent,
      text,
    } = await played([says("Hm.", { searchTools: "invoices" })], {
      ...bodyWith(),
      tools: [{ ...invoicesIndex, defer_loading: false }],
    });
    expect(status).toBe(500);
    expect(sent.get("x-should-retry")).toBe("false");
    expect(JSON.parse(text).error).toEqual({
      type: "api_error",
      message:
        'the script searches for tools ("invoices"), but the request has no tool search tool',
    });
  });

  it("a call of a deferred tool no search loaded; one loaded by this reply, an earlier search or a custom one plays", async () => {
    const unloaded = await played([
      toolCall("customers_show", { id: 1 }, { searchTools: "invoices" }),
    ]);
    expect(unloaded.status).toBe(500);
    expect(JSON.parse(unloaded.text).error.message).toBe(
      "the script calls customers_show, a deferred tool no search loaded: script a searchTools that finds it first",
    );
    await api?.close();

    const earlier = {
      type: "tool_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: {
        type: "tool_search_tool_search_result",
        tool_references: [{ type: "tool_reference", tool_name: "customers_show" }],
      },
    };
    const messages = [
      { role: "user", content: "Show customer 1" },
      {
        role: "assistant",
        content: [
          {
            type: "server_tool_use",
            id: "srvtoolu_1",
            name: "tool_search_tool_bm25",
            input: { query: "customer" },
          },
          earlier,
          { type: "tool_use", id: "toolu_1", name: "projects_archive", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
    ];
    const again = await played([toolCall("customers_show", { id: 1 })], bodyWith({ messages }));
    expect(again.status).toBe(200);
    await api?.close();

    const custom = [
      { role: "user", content: "Show customer 1" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "find", input: {} }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [{ type: "tool_reference", tool_name: "customers_show" }],
          },
        ],
      },
    ];
    expect(
      (await played([toolCall("customers_show", { id: 1 })], bodyWith({ messages: custom })))
        .status,
    ).toBe(200);
  });
});

describe("fakeModel plays the same search over its request's tools", () => {
  const request = (
    tools: ReadonlyArray<unknown>,
    messages: ModelRequest["messages"] = [],
  ): ModelRequest => ({
    model: "claude-sonnet-5-5",
    system: "",
    maxTokens: 1024,
    messages: [{ role: "user", content: "Which invoices are overdue?" }, ...messages],
    tools: tools as ModelRequest["tools"],
  });
  const signal = new AbortController().signal;
  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isModelError(error)).toBe(true);
    return error as { kind: string; status: number; message: string };
  };

  it("answers with the search's blocks, then the call", async () => {
    const model = fakeModel().toolCall("invoices_index", {}, { searchTools: "overdue" });
    const response = await model.step(request([...deferredTools, BM25]), { signal });
    expect(response.content.map((b) => b.type)).toEqual([
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ]);
    expect(references(response.content[1] as Block)).toEqual(["invoices_index"]);
    expect(response.stopReason).toBe("tool_use");
  });

  it("rejects what the API refuses (before its script) and a script that cannot be played", async () => {
    const model = fakeModel()
      .says("Fine.")
      .toolCall("customers_show", { id: 1 })
      .says("Hm.", { searchTools: "x" });
    expect(await failure(model.step(request(deferredTools), { signal }))).toMatchObject({
      kind: "invalidRequest",
      status: 400,
      message: "At least one tool must have defer_loading=false. All tools cannot be deferred.",
    });
    expect(model.remaining()).toBe(3);
    await model.step(request([...deferredTools, BM25]), { signal });
    expect(await failure(model.step(request([...deferredTools, BM25]), { signal }))).toMatchObject({
      kind: "server",
      status: 500,
      message: expect.stringContaining("a deferred tool no search loaded"),
    });
    expect(
      await failure(model.step(request([{ ...invoicesIndex, defer_loading: false }]), { signal })),
    ).toMatchObject({
      kind: "server",
      message: expect.stringContaining("the request has no tool search tool"),
    });
  });
});
