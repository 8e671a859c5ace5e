/**
 * A client tool's own fields pass the proxy unchanged (issue 32): the proxy
 * reads only a tool's `name` and `type`, and forwards the body as parsed,
 * not its decoded copy, so `strict`, `input_examples`, `cache_control` and
 * `defer_loading` reach upstream as the client sent them. And tool search's
 * own server tool passes whatever the settings: it searches only the tools
 * the request sends.
 */
import { says } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { asForwarded, ask, proxied } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const tools = [
  {
    name: "invoices_create",
    description: "Issue an invoice.",
    input_schema: {
      type: "object",
      required: ["customerId"],
      properties: { customerId: { type: "number" }, dueOn: { type: "string" } },
      additionalProperties: false,
    },
    strict: true,
    input_examples: [{ customerId: 42 }, { customerId: 7, dueOn: "2026-07-01" }],
    cache_control: { type: "ephemeral" },
  },
  {
    name: "customers_show",
    description: "Show a customer.",
    input_schema: { type: "object", properties: { id: { type: "number" } } },
    defer_loading: true,
  },
];

describe("a client tool's fields", () => {
  it("strict, input_examples, cache_control and defer_loading are forwarded as sent", async () => {
    setup = await proxied([says("Done.")]);
    const body = { ...ask("Bill Ada"), tools };
    await setup.sdk.messages.create(body as never);
    expect(setup.api.requests).toHaveLength(1);
    expect(setup.api.requests[0]?.body).toEqual(asForwarded(body));
    expect((setup.api.requests[0]?.body as { tools?: unknown } | undefined)?.tools).toEqual(tools);
  });
});

describe("tool search through the proxy", () => {
  const search = (type: string) => ({ type, name: type.replace(/_\d{8}$/, "") });

  it.each(["tool_search_tool_bm25_20251119", "tool_search_tool_regex_20251119"])(
    "passes %s with code execution off, and the search is played upstream",
    async (type) => {
      setup = await proxied([says("Here it is.", { searchTools: "customer" })]);
      const body = { ...ask("Find Ada"), tools: [...tools, search(type)] };
      const answer = await setup.sdk.messages.create(body as never);
      expect(setup.api.requests[0]?.body).toEqual(asForwarded(body));
      expect(answer.content.slice(1)).toEqual([
        expect.objectContaining({ type: "server_tool_use", name: search(type).name }),
        expect.objectContaining({
          type: "tool_search_tool_result",
          content: {
            type: "tool_search_tool_search_result",
            tool_references: [{ type: "tool_reference", tool_name: "customers_show" }],
          },
        }),
      ]);
    },
  );

  it("refuses another server tool beside it: only tool search is let through by type", async () => {
    setup = await proxied([says("never")]);
    const body = {
      ...ask("Find Ada"),
      tools: [
        search("tool_search_tool_bm25_20251119"),
        { type: "tool_search_tool_embeddings_20251119", name: "tool_search_tool_embeddings" },
      ],
    };
    await expect(setup.sdk.messages.create(body as never)).rejects.toMatchObject({
      status: 422,
      error: {
        error: {
          message:
            'tools[1]: the server tool "tool_search_tool_embeddings_20251119" ("tool_search_tool_embeddings") isn\'t proxied',
        },
      },
    });
    expect(setup.api.requests).toEqual([]);
  });
});
