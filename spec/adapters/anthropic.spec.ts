/**
 * `anthropic()` with the real SDK client against the stand-in Messages API on
 * loopback: requests as the API gets them, responses and errors as the
 * runtime gets them, and the SDK's own retries; streamed (the default) and
 * whole alike. What only streaming has is in anthropicStream.spec.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anthropic } from "../../src/anthropic.ts";
import type { ModelRequest } from "../../src/runtime/prompt/model.ts";
import { ModelError } from "../../src/runtime/prompt/model.ts";
import {
  fails,
  overloaded,
  refuses,
  type ScriptedResponse,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
  toolCall,
} from "../../src/testing.ts";

const request: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "You help with the customers of Acme.",
  messages: [{ role: "user", content: "Find Ada" }],
  tools: [
    {
      name: "customers_find",
      description: "Find customers by name",
      input_schema: { type: "object", properties: { name: { type: "string" } } },
      allowed_callers: ["direct"],
    },
  ],
  maxTokens: 1024,
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.each([
  { mode: "streamed", stream: true },
  { mode: "whole", stream: false },
])("anthropic() against the stand-in Messages API, $mode", ({ stream }) => {
  /** The adapter over a stand-in playing `script`. */
  const over = async (script: ReadonlyArray<ScriptedResponse>, maxRetries?: number) => {
    api = await standInMessagesApi(script);
    return anthropic({
      baseURL: api.url,
      apiKey: "test-key",
      stream,
      ...(maxRetries === undefined ? {} : { maxRetries }),
    });
  };

  const step = (model: Awaited<ReturnType<typeof over>>, signal = new AbortController().signal) =>
    model.step(request, { signal });

  /** The ModelError a step rejects with. */
  const failure = async (promise: Promise<unknown>): Promise<ModelError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  };

  it("answers text", async () => {
    const model = await over([
      says("Ada is customer 7.", {
        usage: { inputTokens: 300, outputTokens: 8, cacheReadTokens: 250 },
      }),
    ]);
    expect(await step(model)).toEqual({
      content: [{ type: "text", text: "Ada is customer 7." }],
      stopReason: "end_turn",
      usage: { inputTokens: 300, outputTokens: 8, cacheReadTokens: 250, cacheWriteTokens: 0 },
      model: "claude-sonnet-5-5",
    });
  });

  it("answers a tool call: the block as received, stop reason tool_use, usage", async () => {
    const model = await over([
      toolCall(
        "customers_find",
        { name: "Ada" },
        { id: "toolu_01", text: "Looking.", usage: { inputTokens: 40, outputTokens: 12 } },
      ),
    ]);
    const response = await step(model);
    expect(response.content).toEqual([
      { type: "text", text: "Looking." },
      {
        type: "tool_use",
        id: "toolu_01",
        name: "customers_find",
        input: { name: "Ada" },
        caller: { type: "direct" },
      },
    ]);
    expect(response.stopReason).toBe("tool_use");
    expect(response.usage).toMatchObject({ inputTokens: 40, outputTokens: 12 });
  });

  it("sends the model, a cached system block, messages, tools and max_tokens, with a bearer key", async () => {
    const model = await over([says("ok")]);
    await step(model);
    expect(api?.requests).toHaveLength(1);
    const sent = api?.requests[0];
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.body).toEqual({
      model: "claude-sonnet-5-5",
      max_tokens: 1024,
      system: [
        {
          type: "text",
          text: "You help with the customers of Acme.",
          cache_control: { type: "ephemeral" },
        },
      ],
      // The prompt is the last message: a five-minute breakpoint, as its one text block.
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "Find Ada", cache_control: { type: "ephemeral" } }],
        },
      ],
      tools: request.tools.map((tool, i, all) =>
        i === all.length - 1 ? { ...tool, cache_control: { type: "ephemeral" } } : tool,
      ),
      stream,
    });
    // SDK 1.14 sends an API key as a bearer token, not as x-api-key.
    expect(sent?.headers.authorization).toBe("Bearer test-key");
    expect(sent?.headers["x-api-key"]).toBeUndefined();
    expect(sent?.headers["anthropic-version"]).toBe("2026-10-21");
    expect(sent?.headers["x-stainless-retry-count"]).toBe("0");
  });

  it("sends an auth token the same way, and the container to continue in", async () => {
    api = await standInMessagesApi([says("ok")]);
    // No prompt cache asked for: no breakpoint anywhere.
    const model = anthropic({
      baseURL: api.url,
      authToken: "session-token",
      stream,
      promptCache: false,
    });
    await model.step(
      { ...request, system: "", tools: [], container: "container_1" },
      { signal: new AbortController().signal },
    );
    const sent = api.requests[0];
    expect(sent?.headers.authorization).toBe("Bearer session-token");
    expect(sent?.body).toEqual({
      model: "claude-sonnet-5-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Find Ada" }],
      container: "container_1",
      stream,
    });
  });

  it("gives the container back with its expiry", async () => {
    const model = await over([
      toolCall(
        "customers_find",
        {},
        { container: { id: "container_1", expiresAt: "2030-01-01T00:00:00Z" } },
      ),
    ]);
    expect((await step(model)).container).toEqual({
      id: "container_1",
      expiresAt: "2030-01-01T00:00:00Z",
    });
  });

  it("passes a refusal through", async () => {
    const model = await over([refuses("I can't help with that.")]);
    const response = await step(model);
    expect(response.stopReason).toBe("refusal");
    expect(response.content).toEqual([{ type: "text", text: "I can't help with that." }]);
  });

  it("succeeds after 529, 529, thanks to the SDK's two retries", async () => {
    const model = await over([overloaded(), overloaded(), says("at last")]);
    const response = await step(model);
    expect(response.content).toEqual([{ type: "text", text: "at last" }]);
    expect(api?.requests).toHaveLength(3);
    expect(api?.requests.map((r) => r.headers["x-stainless-retry-count"])).toEqual(["0", "1", "2"]);
  });

  it("rejects with overloaded, status 529, when all three tries are overloaded", async () => {
    const model = await over([overloaded(), overloaded(), overloaded(), says("never")]);
    const error = await failure(step(model));
    expect(error).toMatchObject({ kind: "overloaded", status: 529, message: "Overloaded" });
    expect(api?.requests).toHaveLength(3);
  });

  it("does not retry when the API says not to", async () => {
    const model = await over([
      fails(529, "overloaded_error", "Overloaded", { shouldRetry: false }),
      says("never"),
    ]);
    expect(await failure(step(model))).toMatchObject({ kind: "overloaded", status: 529 });
    expect(api?.requests).toHaveLength(1);
  });

  it("rejects a 401 as auth, without retrying", async () => {
    const model = await over([
      fails(401, "authentication_error", "invalid x-api-key"),
      says("never"),
    ]);
    const error = await failure(step(model));
    expect(error).toMatchObject({ kind: "auth", status: 401, message: "invalid x-api-key" });
    expect(api?.requests).toHaveLength(1);
  });

  it("rejects a 422 as invalidRequest, keeping the API's message", async () => {
    const model = await over([fails(422, "invalid_request_error", "tools.0: bad schema")]);
    expect(await failure(step(model))).toMatchObject({
      kind: "invalidRequest",
      status: 422,
      message: "tools.0: bad schema",
    });
  });

  it("maps rate limits and other server errors once retries are spent", async () => {
    const limited = await over([fails(429, "rate_limit_error", "slow down")], 0);
    expect(await failure(step(limited))).toMatchObject({ kind: "rateLimited", status: 429 });
    await api?.close();
    const broken = await over([fails(500, "api_error", "Internal server error")], 0);
    expect(await failure(step(broken))).toMatchObject({ kind: "server", status: 500 });
  });

  it("rejects with aborted when the signal is aborted mid-request", async () => {
    const model = await over([says("too late", { delayMs: 10_000 })]);
    const controller = new AbortController();
    const pending = step(model, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect(error.kind).toBe("aborted");
    expect(error.status).toBeUndefined();
  });

  it("rejects with aborted, sending nothing, when the signal is already aborted", async () => {
    const model = await over([says("never")]);
    const error = await failure(step(model, AbortSignal.abort()));
    expect(error.kind).toBe("aborted");
    expect(api?.requests).toHaveLength(0);
  });

  it("rejects with aborted when stopped while the SDK waits to retry", async () => {
    const model = await over([
      fails(529, "overloaded_error", "Overloaded", { retryAfterMs: 10_000 }),
    ]);
    const controller = new AbortController();
    const pending = step(model, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect((await failure(pending)).kind).toBe("aborted");
    expect(api?.requests).toHaveLength(1);
  });

  it("rejects with timeout when no answer comes within the SDK's timeout", async () => {
    api = await standInMessagesApi([says("too late", { delayMs: 5_000 })]);
    const model = anthropic({
      baseURL: api.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeout: 100,
      stream,
    });
    expect((await failure(step(model))).kind).toBe("timeout");
  });

  it("rejects with connection when nothing listens", async () => {
    api = await standInMessagesApi([]);
    const url = api.url;
    await api.close();
    api = undefined;
    const model = anthropic({ baseURL: url, apiKey: "test-key", maxRetries: 0, stream });
    expect((await failure(step(model))).kind).toBe("connection");
  });

  it.skipIf(stream)(
    "rejects a whole request the SDK says must stream (large max_tokens) as invalidRequest",
    async () => {
      const model = await over([says("never")]);
      const error = await failure(
        model.step({ ...request, maxTokens: 64_000 }, { signal: new AbortController().signal }),
      );
      expect(error.kind).toBe("invalidRequest");
      expect(error.message).toMatch(/Streaming is required/);
      expect(api?.requests).toHaveLength(0);
    },
  );

  it("rejects an answer that is not a message as decode", async () => {
    api = await standInMessagesApi([says("ok")]);
    const model = anthropic({
      baseURL: api.url,
      apiKey: "test-key",
      stream,
      fetch: async () =>
        new Response("<html>gateway</html>", { headers: { "content-type": "text/html" } }),
    });
    expect((await failure(step(model))).kind).toBe("decode");
  });
});
