/**
 * Tool search played by the stand-in Messages API (issue 32), spoken to
 * with plain fetch, whole and streamed: a reply's `searchTools` over the
 * request's deferred tools, BM25 or regex, and the blocks the API sends for
 * it. Its refusals are in standInToolSearchRefusals.spec.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { searchTools, termsOf } from "../../src/testing/standInToolSearch.ts";
import { says, toolCall } from "../../src/testing.ts";
import {
  type Block,
  BM25,
  bodyWith,
  customersShow,
  deferredTools,
  invoicesIndex,
  REGEX,
  references,
  session,
  tool,
} from "./toolSearchFixture.ts";

const { played, close } = session();
afterEach(close);

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
