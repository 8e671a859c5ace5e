/**
 * A client tool's own fields pass the proxy unchanged (issue 32): the proxy
 * reads only a tool's `name` and `type`, and forwards the body as parsed,
 * not its decoded copy, so `strict`, `input_examples`, `cache_control` and
 * `defer_loading` reach upstream as the client sent them.
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
