/** The timeout on the injected clock (P3), code execution when configured, and whole answers when streaming isn't proxied. */
import Anthropic from "@anthropic-ai/sdk";
import { anthropic } from "elyra-assistant/anthropic";
import { codeRuns, says, simulatedClock } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ask, MODEL, proxied, USER_TOKEN, until } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("the upstream timeout, 120 s on the injected clock", () => {
  it("cuts a stalled stream at 120 s of silence with a timeout_error event, not before", async () => {
    const clock = simulatedClock();
    setup = await proxied(
      [says("Hello there, and then nothing.", { stallAfter: 5, usage: { inputTokens: 9 } })],
      {
        clock,
      },
    );
    const stream = await setup.sdk.messages.create({ ...ask("Hi"), stream: true });
    const seen: string[] = [];
    const read = (async () => {
      for await (const event of stream) seen.push(event.type);
    })();
    const failed = read.then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(() => seen.includes("content_block_delta"));
    clock.increment(119_999);
    await settle();
    expect(setup.api.abandoned).toEqual([]);
    expect(setup.reports).toEqual([]);
    clock.increment(1);
    const error = await failed;
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toMatch(
      /sent nothing for 120 s/,
    );
    await until(() => setup?.api.abandoned.length === 1);
    await until(() => setup?.reports.length === 1);
    expect(setup.reports[0]?.usage.inputTokens).toBe(9);
  });

  it("answers 504 timeout_error when upstream's headers don't come in 120 s", async () => {
    const clock = simulatedClock();
    setup = await proxied([says("Too late.", { delayMs: 10_000 })], { clock });
    const answer = setup.sdk.messages.create(ask("Hi")).then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(() => setup?.api.requests.length === 1);
    clock.increment(120_000);
    const error = (await answer) as InstanceType<typeof Anthropic.APIError>;
    expect(error.status).toBe(504);
    expect((error.error as { error: { type: string } }).error.type).toBe("timeout_error");
    await until(() => setup?.api.abandoned.length === 1);
    expect(setup.reports).toHaveLength(1);
  });
});

describe("code execution", () => {
  const tools = [
    { type: "code_execution_20260120", name: "code_execution" },
    {
      name: "invoices_show",
      description: "Shows an invoice",
      input_schema: { type: "object", properties: { id: { type: "number" } } },
      allowed_callers: ["direct", "code_execution_20260120"],
    },
  ];

  it("is refused by default and passed with `codeExecution: true`", async () => {
    setup = await proxied([
      codeRuns("await invoices_show({ id: 1 })", [{ name: "invoices_show", input: { id: 1 } }]),
    ]);
    await expect(
      setup.sdk.messages.create({ ...ask("Sum them"), tools } as never),
    ).rejects.toMatchObject({
      status: 422,
    });
    expect(setup.api.requests).toEqual([]);
    await setup.close();

    setup = await proxied(
      [codeRuns("await invoices_show({ id: 1 })", [{ name: "invoices_show", input: { id: 1 } }])],
      { codeExecution: true },
    );
    const message = (await setup.sdk.messages.create({ ...ask("Sum them"), tools } as never)) as {
      content: Array<{ type: string }>;
    };
    expect(message.content.map((b) => b.type)).toEqual(["server_tool_use", "tool_use"]);
    expect((setup.api.requests[0]?.body as { tools?: unknown } | undefined)?.tools).toEqual(tools);
  });
});

describe("`stream: false`", () => {
  it("the anthropic() adapter, refused a stream, asks again whole", async () => {
    setup = await proxied([says("Whole, then.")], { stream: false });
    const model = anthropic({ baseURL: setup.url, authToken: USER_TOKEN, maxRetries: 0 });
    const pieces: string[] = [];
    const response = await model.step(
      {
        model: MODEL,
        system: "Be brief.",
        messages: [{ role: "user", content: "Hi" }],
        tools: [],
        maxTokens: 100,
      },
      { signal: new AbortController().signal, onText: (piece) => pieces.push(piece) },
    );
    expect(response.content).toEqual([
      expect.objectContaining({ type: "text", text: "Whole, then." }),
    ]);
    expect(pieces).toEqual(["Whole, then."]);
    expect(setup.api.requests).toHaveLength(1);
    expect((setup.api.requests[0]?.body as { stream?: boolean } | undefined)?.stream).toBe(false);
  });
});
