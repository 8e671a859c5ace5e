/**
 * `anthropic()` streaming, with the real SDK over real HTTP against the
 * stand-in Messages API: text told as it comes, the same message a whole
 * answer gives, and each way a stream goes wrong (S1, S4 of the guarantees;
 * S2 and S3 as properties in spec/properties/streams.spec.ts).
 */

import type { ClientOptions } from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AnthropicStreaming, anthropic } from "../../src/anthropic.ts";
import type { ModelRequest } from "../../src/runtime/prompt/model.ts";
import { ModelError } from "../../src/runtime/prompt/model.ts";
import {
  encodeEvent,
  fails,
  overloaded,
  type ScriptedReply,
  type ScriptedResponse,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
  toolCall,
  type WireStreamEvent,
} from "../../src/testing.ts";

const request: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "You help with the customers of Acme.",
  messages: [{ role: "user", content: "Find Ada" }],
  tools: [],
  maxTokens: 1024,
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

type Options = ClientOptions & AnthropicStreaming;

/** The adapter over a stand-in playing `script`. */
const over = async (script: ReadonlyArray<ScriptedResponse>, options: Options = {}) => {
  api = await standInMessagesApi(script);
  return anthropic({ baseURL: api.url, apiKey: "test-key", ...options });
};

/** A step, with the text pieces it was told. */
const step = async (
  model: ReturnType<typeof anthropic>,
  signal: AbortSignal = new AbortController().signal,
) => {
  const pieces: string[] = [];
  const response = await model.step(request, { signal, onText: (piece) => pieces.push(piece) });
  return { response, pieces };
};

/** The ModelError a promise rejects with. */
const failure = async (promise: Promise<unknown>): Promise<ModelError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
};

const streams = () => api?.requests.map((r) => (r.body as { stream?: boolean }).stream);

/** The same reply asked streamed and whole, each from a fresh stand-in with the same ids. */
const bothWays = async (reply: ScriptedReply) => {
  const streamed = await step(await over([reply]));
  await api?.close();
  const whole = await step(await over([reply], { stream: false }));
  return { streamed, whole };
};

describe("anthropic() streaming", () => {
  it("asks with stream: true and tells the text in order as it comes", async () => {
    const model = await over([
      says("Ada is customer 7.", {
        pieces: ["Ada", " is", " customer", " 7."],
        usage: { inputTokens: 300, outputTokens: 8, cacheReadTokens: 250 },
      }),
    ]);
    const { response, pieces } = await step(model);
    expect(pieces).toEqual(["Ada", " is", " customer", " 7."]);
    expect(response).toEqual({
      content: [{ type: "text", text: "Ada is customer 7." }],
      stopReason: "end_turn",
      usage: { inputTokens: 300, outputTokens: 8, cacheReadTokens: 250, cacheWriteTokens: 0 },
      model: "claude-sonnet-5-5",
    });
    expect(streams()).toEqual([true]);
  });

  it("gives text, two tool calls and their stop reason exactly as the whole answer does", async () => {
    const reply = {
      text: "Let me look both up.",
      toolCalls: [
        { name: "customers_find", input: { name: "Ada" } },
        { name: "invoices_index", input: { customer: 7, filter: { overdue: true, note: "a\\d" } } },
      ],
      usage: { inputTokens: 40, outputTokens: 30 },
    };
    const { streamed, whole } = await bothWays(reply);
    expect(streamed.response).toEqual(whole.response);
    expect(streamed.response.content.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    expect(streamed.response.content[2]).toMatchObject({
      input: { customer: 7, filter: { overdue: true, note: "a\\d" } },
    });
    expect(streamed.pieces.join("")).toBe("Let me look both up.");
    // A whole answer tells its text at once.
    expect(whole.pieces).toEqual(["Let me look both up."]);
  });

  it("gathers thinking and its signature, keeps other blocks, and gives the container", async () => {
    const { streamed, whole } = await bothWays({
      thinking: "They want the total.",
      blocks: [
        {
          type: "server_tool_use",
          id: "srvtoolu_1",
          name: "code_execution",
          input: { code: "1+2" },
        },
        {
          type: "code_execution_tool_result",
          tool_use_id: "srvtoolu_1",
          content: { type: "code_execution_result", stdout: "3\n", stderr: "", return_code: 0 },
        },
      ],
      text: "Three.",
      stopReason: "pause_turn",
      container: { id: "container_1", expiresAt: "2030-01-01T00:00:00Z" },
    });
    expect(streamed.response).toEqual(whole.response);
    expect(streamed.response.content[0]).toEqual({
      type: "thinking",
      thinking: "They want the total.",
      signature: "sig_stand-in-2",
    });
    expect(streamed.response.stopReason).toBe("pause_turn");
    expect(streamed.response.container).toEqual({
      id: "container_1",
      expiresAt: "2030-01-01T00:00:00Z",
    });
  });

  it("reads an input that streamed nothing as {}", async () => {
    const { response } = await step(await over([toolCall("customers_all", {}, { id: "toolu_1" })]));
    expect(response.content).toEqual([
      {
        type: "tool_use",
        id: "toolu_1",
        name: "customers_all",
        input: {},
        caller: { type: "direct" },
      },
    ]);
  });

  it("passes a refusal through", async () => {
    const { response, pieces } = await step(
      await over([{ text: "I can't help with that.", stopReason: "refusal" }]),
    );
    expect(response.stopReason).toBe("refusal");
    expect(pieces.join("")).toBe("I can't help with that.");
  });

  describe("S1: an error event after HTTP 200", () => {
    it("is an overloaded ModelError with status 529, never a short success", async () => {
      const model = await over([says("Hello there, Ada", { pieces: 4, errorAfter: 5 })], {
        maxRetries: 2,
      });
      const pieces: string[] = [];
      const error = await failure(
        model.step(request, { signal: AbortSignal.timeout(5_000), onText: (p) => pieces.push(p) }),
      );
      expect(error).toMatchObject({ kind: "overloaded", status: 529, message: "Overloaded" });
      expect(pieces).toEqual(["Hell", "o th"]);
      // Mid-stream, the SDK does not retry.
      expect(api?.requests).toHaveLength(1);
    });

    it.each([
      ["api_error", "server"],
      ["rate_limit_error", "rateLimited"],
      ["invalid_request_error", "invalidRequest"],
      ["authentication_error", "auth"],
    ])("maps an error event of type %s to %s, without a status", async (type, kind) => {
      const model = await over([says("Hello", { errorAfter: { events: 3, type, message: "no" } })]);
      const error = await failure(step(model));
      expect(error).toMatchObject({ kind, message: "no" });
      expect(error.status).toBeUndefined();
    });
  });

  describe("S4: the SDK's retries before the stream starts", () => {
    it("succeeds after 529, 529, streaming the third answer", async () => {
      const model = await over([overloaded(), overloaded(), says("at last")]);
      const { response, pieces } = await step(model);
      expect(response.content).toEqual([{ type: "text", text: "at last" }]);
      expect(pieces).toEqual(["at last"]);
      expect(streams()).toEqual([true, true, true]);
      expect(api?.requests.map((r) => r.headers["x-stainless-retry-count"])).toEqual([
        "0",
        "1",
        "2",
      ]);
    });

    it("fails as overloaded, status 529, after 529 three times", async () => {
      const model = await over([overloaded(), overloaded(), overloaded(), says("never")]);
      expect(await failure(step(model))).toMatchObject({ kind: "overloaded", status: 529 });
      expect(api?.requests).toHaveLength(3);
    });

    it("rejects a 401 as auth, without retrying or asking whole", async () => {
      const model = await over([fails(401, "authentication_error", "invalid x-api-key")]);
      expect(await failure(step(model))).toMatchObject({ kind: "auth", status: 401 });
      expect(streams()).toEqual([true]);
    });
  });

  describe("a gateway that will not stream", () => {
    it("asks again whole after a 422 that says Streaming, and stays whole", async () => {
      const model = await over([
        fails(422, "invalid_request_error", "Streaming isn't proxied"),
        says("Whole at once."),
        says("Still whole."),
        says("And again."),
      ]);
      const first = await step(model);
      expect(first.response.content).toEqual([{ type: "text", text: "Whole at once." }]);
      expect(first.pieces).toEqual(["Whole at once."]);
      expect((await step(model)).pieces).toEqual(["Still whole."]);
      expect((await step(model)).pieces).toEqual(["And again."]);
      expect(streams()).toEqual([true, false, false, false]);
    });

    it("does not ask whole after another 422", async () => {
      const model = await over([fails(422, "invalid_request_error", "tools.0: bad"), says("x")]);
      expect(await failure(step(model))).toMatchObject({ kind: "invalidRequest", status: 422 });
      expect(streams()).toEqual([true]);
    });

    it("keeps a fallen-back model whole, but another model streams", async () => {
      api = await standInMessagesApi([
        fails(422, "invalid_request_error", "Streaming is not supported here"),
        says("a"),
        says("b"),
      ]);
      const options = { baseURL: api.url, apiKey: "test-key" };
      await step(anthropic(options));
      await step(anthropic(options));
      expect(streams()).toEqual([true, false, true]);
    });

    it("tells the text of a JSON answer to a stream request at once", async () => {
      const reply = { text: "All at once.", toolCalls: [{ name: "a", input: { q: 1 } }] };
      const json = await step(await over([{ ...reply, jsonToStream: true }]));
      await api?.close();
      const whole = await step(await over([reply], { stream: false }));
      expect(json.response).toEqual(whole.response);
      expect(json.pieces).toEqual(["All at once."]);
    });
  });

  describe("the idle watchdog", () => {
    it("times out a stalled stream after idleTimeoutMs, and leaves it", async () => {
      const model = await over([says("Hello there", { pieces: 4, stallAfter: 4 })], {
        idleTimeoutMs: 200,
      });
      const started = performance.now();
      const pieces: string[] = [];
      const error = await failure(
        model.step(request, {
          signal: new AbortController().signal,
          onText: (p) => pieces.push(p),
        }),
      );
      const waited = performance.now() - started;
      expect(error).toMatchObject({ kind: "timeout" });
      expect(error.message).toMatch(/200 ms/);
      expect(pieces).toEqual(["He"]);
      expect(waited).toBeGreaterThanOrEqual(195);
      expect(waited).toBeLessThan(2_000);
      await expect.poll(() => api?.abandoned).toEqual([0]);
    });

    it("is reset by every event: a slow stream that never goes quiet that long succeeds", async () => {
      const model = await over([says("0123456789", { pieces: 10, paceMs: 40 })], {
        idleTimeoutMs: 150,
      });
      const started = performance.now();
      const { pieces } = await step(model);
      expect(pieces).toHaveLength(10);
      expect(performance.now() - started).toBeGreaterThan(300);
    });

    it("answers at message_stop even when the connection lingers, then leaves it", async () => {
      const model = await over([says("Done.", { lingerAfterStop: true })]);
      const { response } = await step(model);
      expect(response.stopReason).toBe("end_turn");
      // Resolved while the body was still open: the client has not left yet.
      expect(api?.abandoned).toEqual([]);
      // The background drain gives up on the lingering body (at 1 s) and leaves it.
      await expect.poll(() => api?.abandoned, { timeout: 3_000 }).toEqual([0]);
    });

    it("does not time the wait for the answer to start: the SDK's timeout does", async () => {
      const model = await over([says("late but whole", { delayMs: 300 })], { idleTimeoutMs: 100 });
      expect((await step(model)).pieces).toEqual(["late but whole"]);
    });
  });

  describe("Stop", () => {
    it("rejects only the step's promise with aborted, mid-stream, and leaves the stream", async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", onUnhandled);
      try {
        const model = await over([says("a long answer, told slowly", { pieces: 20, paceMs: 20 })]);
        const controller = new AbortController();
        const pieces: string[] = [];
        const pending = model.step(request, {
          signal: controller.signal,
          onText: (piece) => {
            pieces.push(piece);
            if (pieces.length === 3) controller.abort();
          },
        });
        const error = await failure(pending);
        expect(error.kind).toBe("aborted");
        expect(pieces).toHaveLength(3);
        await expect.poll(() => api?.abandoned).toEqual([0]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(unhandled).toEqual([]);
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    });

    it("rejects with aborted, sending nothing, when already stopped", async () => {
      const model = await over([says("never")]);
      expect((await failure(step(model, AbortSignal.abort()))).kind).toBe("aborted");
      expect(api?.requests).toHaveLength(0);
    });
  });

  describe("streams gone wrong", () => {
    it("rejects a stream that ends before message_stop as decode", async () => {
      const model = await over([toolCall("a", { q: 1 }, { cutAfter: 6 })]);
      const error = await failure(step(model));
      expect(error).toMatchObject({ kind: "decode" });
      expect(error.message).toBe("the stream ended before message_stop");
    });

    it("rejects a reset connection mid-stream as decode too", async () => {
      const model = await over([toolCall("a", { q: 1 }, { cutAfter: 6, cutHow: "reset" })]);
      const error = await failure(step(model));
      expect(error.kind).toBe("decode");
      expect(error.message).toMatch(/^the stream ended before message_stop \(/);
    });

    it("passes on what onText throws, untouched", async () => {
      const model = await over([says("Hello")]);
      const bug = new Error("the listener broke");
      const thrown = await model
        .step(request, {
          signal: new AbortController().signal,
          onText: () => {
            throw bug;
          },
        })
        .catch((e: unknown) => e);
      expect(thrown).toBe(bug);
    });
  });

  describe("events only a hand-written stream sends", () => {
    const sse = (...events: WireStreamEvent[]) => events.map(encodeEvent).join("");
    const start = {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-x",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    };
    const end = (
      stop_reason = "end_turn",
      usage: Record<string, number> = { output_tokens: 5 },
    ) => [
      { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage },
      { type: "message_stop" },
    ];
    /** A model whose fetch answers with `parts`, written `gapMs` apart, and stays open if told. */
    const answering = (parts: string[], more: { gapMs?: number; open?: boolean } = {}) =>
      anthropic({
        apiKey: "test-key",
        maxRetries: 0,
        idleTimeoutMs: 150,
        fetch: async (_url, init) => {
          const encoder = new TextEncoder();
          const body = new ReadableStream<Uint8Array>({
            async start(controller) {
              init?.signal?.addEventListener("abort", () =>
                controller.error(new DOMException("aborted", "AbortError")),
              );
              for (const part of parts) {
                if (more.gapMs) await new Promise((r) => setTimeout(r, more.gapMs));
                if (init?.signal?.aborted) return;
                controller.enqueue(encoder.encode(part));
              }
              if (!more.open) controller.close();
            },
          });
          return new Response(body, { headers: { "content-type": "text/event-stream" } });
        },
      });

    it("rejects a tool input that is not JSON as decode", async () => {
      const model = answering([
        sse(
          start,
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "t", name: "a", input: {} },
          },
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: '{"q": ' },
          },
          { type: "content_block_stop", index: 0 },
          ...end("tool_use"),
        ),
      ]);
      const error = await failure(step(model));
      expect(error.kind).toBe("decode");
      expect(error.message).toMatch(/^the input of a is not JSON/);
    });

    it("gathers citations, takes whole-message usage from message_delta, skips pings and nameless data", async () => {
      const citation = { type: "char_location", cited_text: "Ada", document_index: 0 };
      const model = answering([
        sse(start, { type: "ping" }),
        // Data with no event line: the SDK's own reader skips it, and so does the adapter.
        'data: {"type":"content_block_start"}\n\n',
        sse(
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "text", text: "", citations: null },
          },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Ada" } },
          { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } },
          { type: "content_block_stop", index: 0 },
          ...end("end_turn", { output_tokens: 9, input_tokens: 20, cache_read_input_tokens: 8 }),
        ),
      ]);
      const { response } = await step(model);
      expect(response.content).toEqual([{ type: "text", text: "Ada", citations: [citation] }]);
      expect(response.usage).toEqual({ inputTokens: 20, outputTokens: 9, cacheReadTokens: 8 });
    });

    it("resolves at message_stop though the body is never closed", async () => {
      const model = answering(
        [
          sse(
            start,
            { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
            { type: "content_block_stop", index: 0 },
            ...end(),
          ),
        ],
        { open: true },
      );
      const started = performance.now();
      expect((await step(model)).response.content).toEqual([{ type: "text", text: "Hi" }]);
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    it("counts pings as signs of life for the watchdog", async () => {
      const ping = sse({ type: "ping" });
      const model = answering([sse(start), ping, ping, ping, ping, ping, sse(...end())], {
        gapMs: 60,
      });
      expect((await step(model)).response.stopReason).toBe("end_turn");
    });

    it("rejects deltas for a block that never started as decode", async () => {
      const model = answering([
        sse(
          start,
          { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "?" } },
          ...end(),
        ),
      ]);
      expect((await failure(step(model))).message).toBe("no content block 3");
    });
  });
});
