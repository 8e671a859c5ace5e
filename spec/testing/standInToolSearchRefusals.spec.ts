/**
 * Tool search refused (issue 32): the stand-in Messages API answers what the
 * API refuses with its 400s, and a script that cannot be played (a search
 * with no tool search tool, a call of a deferred tool no search loaded)
 * with a 500 not retried; the fake model rejects the same, and plays the
 * same search over its request's tools.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isModelError, type ModelRequest } from "../../src/runtime/prompt/model.ts";
import { fakeModel, says, toolCall } from "../../src/testing.ts";
import {
  type Block,
  BM25,
  bodyWith,
  deferredTools,
  invoicesIndex,
  references,
  session,
} from "./toolSearchFixture.ts";

const { played, post, close } = session();
afterEach(close);

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
    await close();
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
    await close();

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
    await close();

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
