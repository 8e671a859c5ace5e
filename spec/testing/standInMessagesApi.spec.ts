/** The stand-in Messages API, spoken to with plain fetch, and the script format it plays. */
import { afterEach, describe, expect, it } from "vitest";
import {
  countingIds,
  fails,
  overloaded,
  refuses,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
  toMessage,
  toolCall,
} from "../../src/testing.ts";

const headers = {
  "content-type": "application/json",
  authorization: "Bearer test-key",
  "anthropic-version": "2026-10-21",
};
const body = {
  model: "claude-sonnet-5-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Hi" }],
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const post = (url: string, payload: unknown = body, extra: Record<string, string> = headers) =>
  fetch(`${url}/v1/messages`, { method: "POST", headers: extra, body: JSON.stringify(payload) });

describe("toMessage", () => {
  it("turns a text reply into the API's message, ending the turn", () => {
    expect(toMessage(says("Hello"), countingIds("t"), "claude-x")).toEqual({
      id: "msg_t-1",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text: "Hello" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
  });

  it("puts thinking, text, other blocks and tool calls in that order; tool calls stop with tool_use", () => {
    const message = toMessage(
      {
        thinking: "Look them up.",
        text: "Let me look.",
        blocks: [{ type: "server_tool_use", id: "srvtoolu_1", name: "code_execution", input: {} }],
        toolCalls: [{ name: "customers_find", input: { name: "Ada" } }],
        container: { id: "container_1", expiresAt: "2030-01-01T00:00:00Z" },
      },
      countingIds("t"),
    );
    expect(message.content.map((block) => block.type)).toEqual([
      "thinking",
      "text",
      "server_tool_use",
      "tool_use",
    ]);
    expect(message.content[3]).toEqual({
      type: "tool_use",
      id: "toolu_t-2",
      name: "customers_find",
      input: { name: "Ada" },
      caller: { type: "direct" },
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.container).toEqual({ id: "container_1", expires_at: "2030-01-01T00:00:00Z" });
  });

  it("keeps a scripted tool id, stop reason and usage", () => {
    const message = toMessage(
      toolCall("a", {}, { id: "toolu_fixed", usage: { inputTokens: 1, cacheReadTokens: 900 } }),
      countingIds(),
    );
    expect(message.content).toEqual([
      { type: "tool_use", id: "toolu_fixed", name: "a", input: {}, caller: { type: "direct" } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 1, cache_read_input_tokens: 900 });
    expect(toMessage(refuses(), countingIds()).stop_reason).toBe("refusal");
    expect(toMessage(says("…", { stopReason: "max_tokens" }), countingIds()).stop_reason).toBe(
      "max_tokens",
    );
  });
});

describe("standInMessagesApi", () => {
  it("listens on loopback and answers each request with the next scripted message", async () => {
    api = await standInMessagesApi([says("Hello"), toolCall("customers_find", { name: "Ada" })]);
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const first = await post(api.url);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("request-id")).toMatch(/^req_/);
    const message = await first.json();
    expect(message).toMatchObject({
      type: "message",
      model: "claude-sonnet-5-5",
      content: [{ type: "text", text: "Hello" }],
      stop_reason: "end_turn",
    });

    const second = await (await post(api.url)).json();
    expect(second.stop_reason).toBe("tool_use");
    expect(second.content[0]).toMatchObject({ type: "tool_use", name: "customers_find" });

    expect(api.requests).toHaveLength(2);
    expect(api.requests[0]).toMatchObject({ method: "POST", path: "/v1/messages", body });
    expect(api.requests[0]?.headers.authorization).toBe("Bearer test-key");
  });

  it("answers a scripted error with its status, the API's error body and a request-id", async () => {
    api = await standInMessagesApi([fails(422, "invalid_request_error", "bad tool schema")]);
    const response = await post(api.url);
    expect(response.status).toBe(422);
    expect(response.headers.get("request-id")).toMatch(/^req_/);
    expect(response.headers.get("x-should-retry")).toBeNull();
    expect(response.headers.get("retry-after-ms")).toBeNull();
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "bad tool schema" },
    });
  });

  it("advises a short wait on retryable errors, and x-should-retry only when scripted", async () => {
    api = await standInMessagesApi([
      overloaded(),
      fails(529, "overloaded_error", "Overloaded", { shouldRetry: false }),
      fails(500, "api_error", "boom", { retryAfterMs: 250 }),
    ]);
    const first = await post(api.url);
    expect(first.status).toBe(529);
    expect(first.headers.get("retry-after-ms")).toBe("1");
    expect(first.headers.get("x-should-retry")).toBeNull();

    const second = await post(api.url);
    expect(second.headers.get("x-should-retry")).toBe("false");
    expect(second.headers.get("retry-after-ms")).toBeNull();

    const third = await post(api.url);
    expect(third.headers.get("retry-after-ms")).toBe("250");
  });

  it("answers a stream request with an event stream, using one script entry", async () => {
    api = await standInMessagesApi([says("Hello"), says("Again")]);
    const streamed = await post(api.url, { ...body, stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await streamed.text()).toContain('"text_delta","text":"Hello"');
    expect((await (await post(api.url)).json()).content).toEqual([{ type: "text", text: "Again" }]);
    expect(api.requests.map((r) => (r.body as { stream?: boolean }).stream)).toEqual([
      true,
      undefined,
    ]);
  });

  it("refuses requests the API would: no credentials, no version, missing fields, other paths", async () => {
    api = await standInMessagesApi([says("unused")]);
    const { authorization: _, ...noAuth } = headers;
    const { "anthropic-version": __, ...noVersion } = headers;

    expect((await post(api.url, body, noAuth)).status).toBe(401);
    expect((await post(api.url, body, noVersion)).status).toBe(400);
    const noModel = await post(api.url, { max_tokens: 5, messages: [] });
    expect(noModel.status).toBe(400);
    expect((await noModel.json()).error.message).toBe("model: Field required");
    const elsewhere = await fetch(`${api.url}/v1/models`, { headers });
    expect(elsewhere.status).toBe(404);
    expect((await elsewhere.json()).error.type).toBe("not_found_error");
    expect(api.requests).toHaveLength(4);
  });

  it("says so, without inviting a retry, when the script is used up", async () => {
    api = await standInMessagesApi([]);
    const response = await post(api.url);
    expect(response.status).toBe(500);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect((await response.json()).error.message).toMatch(/script has 0 responses/);
  });

  it("plays a function of the request", async () => {
    api = await standInMessagesApi((request) => {
      const { messages } = request.body as { messages: Array<{ content: string }> };
      return says(`You said ${messages.at(-1)?.content}`);
    });
    const message = await (await post(api.url)).json();
    expect(message.content).toEqual([{ type: "text", text: "You said Hi" }]);
  });

  it("waits a scripted delay, and gives up waiting when the client goes away", async () => {
    api = await standInMessagesApi([says("late", { delayMs: 10_000 }), says("next")]);
    const controller = new AbortController();
    const aborted = fetch(`${api.url}/v1/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: controller.signal,
    }).catch((error: Error) => error.name);
    setTimeout(() => controller.abort(), 50);
    expect(await aborted).toBe("AbortError");
    const started = Date.now();
    expect((await (await post(api.url)).json()).content).toEqual([{ type: "text", text: "next" }]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("drops requests still waiting when closed", async () => {
    const closing = await standInMessagesApi([says("late", { delayMs: 10_000 })]);
    const pending = post(closing.url).catch((error: Error) => error.name);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await closing.close();
    expect(await pending).toBe("TypeError");
  });
});
