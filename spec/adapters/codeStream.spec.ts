/**
 * `anthropic()` tells a code execution's code as it streams (`onCode`):
 * `""` when its `server_tool_use` block starts, then each piece decoded from
 * the `input_json_delta` pieces, with the real SDK over HTTP against the
 * stand-in; and a hostile stream (input that is not JSON, an input past the
 * bound, a block that never stops, a stream that goes quiet mid-code) ends
 * the step with a ModelError that says so, never a crash or a buffer that
 * grows without end.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_STREAMED_INPUT_CHARS } from "../../src/adapters/model/anthropicStream.ts";
import { anthropic } from "../../src/anthropic.ts";
import type { ModelRequest } from "../../src/runtime/prompt/model.ts";
import { ModelError } from "../../src/runtime/prompt/model.ts";
import {
  codeRuns,
  encodeEvent,
  type StandInMessagesApi,
  standInMessagesApi,
  type WireStreamEvent,
} from "../../src/testing.ts";

const request: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "",
  messages: [{ role: "user", content: "Sum the invoices" }],
  tools: [{ type: "code_execution_20260120", name: "code_execution" }],
  maxTokens: 1024,
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A step, with everything it told, in order. */
const step = async (model: ReturnType<typeof anthropic>) => {
  const told: Array<readonly [string, string] | string> = [];
  const response = await model.step(request, {
    signal: new AbortController().signal,
    onText: (piece) => told.push(piece),
    onCode: (toolId, piece) => told.push([toolId, piece]),
  });
  return { response, told };
};

/** Every position of `json` from 1 to its end, `every` apart. */
const every = (json: string, n: number) =>
  Array.from({ length: Math.ceil(json.length / n) }, (_, i) => (i + 1) * n);

const CODE = [
  'invoices = await invoices_index({"overdue": True})',
  'print(f"{len(invoices)} overdue \\u2014 \\"late\\" ones: 😀")',
  "for i in invoices:\n\tprint(i['id'], end='\\\\')",
].join("\n");

describe("anthropic() streams a code execution's code", () => {
  it("tells the block's start, then the code in pieces that join to it, before the step ends", async () => {
    const json = JSON.stringify({ code: CODE });
    const reply = codeRuns(CODE, [], { text: "In code:", splitAt: every(json, 3) });
    api = await standInMessagesApi([reply]);
    const { response, told } = await step(anthropic({ baseURL: api.url, apiKey: "test-key" }));

    // The text first, then the code: its start, then its pieces.
    expect(told[0]).toBe("In code:");
    const code = told.slice(1) as Array<readonly [string, string]>;
    expect(code[0]).toEqual(["srvtoolu_1", ""]);
    expect(code.every(([id]) => id === "srvtoolu_1")).toBe(true);
    expect(code.slice(1).every(([, piece]) => piece !== "")).toBe(true);
    expect(code.length).toBeGreaterThan(50);
    expect(code.map(([, piece]) => piece).join("")).toBe(CODE);
    // The response holds the whole code, as it did before.
    expect(response.content[1]).toEqual({
      type: "server_tool_use",
      id: "srvtoolu_1",
      name: "code_execution",
      input: { code: CODE },
    });
  });

  it("tells nothing of code to a step without onCode, nor of a tool call's input, nor when answered whole", async () => {
    const reply = codeRuns(CODE, [{ name: "invoices_index", input: { code: "not code" } }]);
    api = await standInMessagesApi([reply, reply]);
    const model = anthropic({ baseURL: api.url, apiKey: "test-key" });
    const plain = await model.step(request, { signal: new AbortController().signal });
    const streamed = await step(model);
    // The same message either way (but for the tool call's fresh id).
    expect(streamed.response.content[0]).toEqual(plain.content[0]);
    expect(streamed.response.stopReason).toBe(plain.stopReason);
    const code = streamed.told as Array<readonly [string, string]>;
    expect(new Set(code.map(([id]) => id))).toEqual(new Set(["srvtoolu_1"]));
    expect(code.map(([, piece]) => piece).join("")).toBe(CODE);
    await api.close();
    api = await standInMessagesApi([reply]);
    const whole = await step(anthropic({ baseURL: api.url, apiKey: "test-key", stream: false }));
    expect(whole.told).toEqual([]);
    expect(whole.response.content[0]).toMatchObject({ input: { code: CODE } });
  });

  describe("a hostile stream", () => {
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
    const codeStart = {
      type: "content_block_start",
      index: 0,
      content_block: {
        type: "server_tool_use",
        id: "srvtoolu_9",
        name: "code_execution",
        input: {},
      },
    };
    const json = (partial_json: string) => ({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json },
    });
    const stop = { type: "content_block_stop", index: 0 };
    const end = [
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
      { type: "message_stop" },
    ];
    /** A model whose fetch answers with `parts`, and then stays open (a stream that goes quiet) if told. */
    const answering = (parts: string[], more: { open?: boolean } = {}) =>
      anthropic({
        apiKey: "test-key",
        maxRetries: 0,
        idleTimeoutMs: 150,
        fetch: async (_url, init) => {
          const encoder = new TextEncoder();
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              init?.signal?.addEventListener("abort", () =>
                controller.error(new DOMException("aborted", "AbortError")),
              );
              for (const part of parts) controller.enqueue(encoder.encode(part));
              if (!more.open) controller.close();
            },
          });
          return new Response(body, { headers: { "content-type": "text/event-stream" } });
        },
      });
    /** How the step failed, and the code it told before. */
    const failed = async (model: ReturnType<typeof anthropic>) => {
      const code: string[] = [];
      const error = await model
        .step(request, {
          signal: new AbortController().signal,
          onCode: (_id, piece) => code.push(piece),
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ModelError);
      return { error: error as ModelError, code: code.join("") };
    };

    it("input that is not JSON: the code stops being told where it breaks, and the step fails as decode", async () => {
      const { error, code } = await failed(
        answering([sse(start, codeStart, json('{"code": "print(1)'), json('\\x"}'), stop, ...end)]),
      );
      expect(code).toBe("print(1)");
      expect(error.kind).toBe("decode");
      expect(error.message).toMatch(/^the input of code_execution is not JSON/);
    });

    it(`an input past ${MAX_STREAMED_INPUT_CHARS} characters fails as decode, and is read no further`, async () => {
      const piece = `${"x".repeat(1024 * 1024)}`;
      const parts = [sse(start, codeStart, json('{"code": "'))];
      for (let i = 0; i < 5; i++) parts.push(sse(json(piece)));
      parts.push(sse(json('"}'), stop, ...end));
      const { error, code } = await failed(answering(parts));
      expect(error.kind).toBe("decode");
      expect(error.message).toBe(
        `the input of code_execution passed ${MAX_STREAMED_INPUT_CHARS} characters before its block stopped`,
      );
      // What was told is what came before the piece that passed the bound.
      expect(code.length).toBe(3 * piece.length);
      expect(code.length).toBeLessThanOrEqual(MAX_STREAMED_INPUT_CHARS);
    });

    it("a block that never stops before message_stop fails as decode, rather than a call with {}", async () => {
      const { error, code } = await failed(
        answering([sse(start, codeStart, json('{"code": "print(1)"}'), ...end)]),
      );
      expect(code).toBe("print(1)");
      expect(error).toMatchObject({
        kind: "decode",
        message:
          "the input of code_execution never ended: its block did not stop before message_stop",
      });
    });

    it("a stream that goes quiet mid-code times out, with what was told kept", async () => {
      const { error, code } = await failed(
        answering([sse(start, codeStart, json('{"code": "while True:'))], { open: true }),
      );
      expect(code).toBe("while True:");
      expect(error.kind).toBe("timeout");
    });

    it("passes on what onCode throws, untouched", async () => {
      const bug = new Error("the listener's own bug");
      const model = answering([sse(start, codeStart, json('{"code": "x"}'), stop, ...end)]);
      const thrown = await model
        .step(request, {
          signal: new AbortController().signal,
          onCode: () => {
            throw bug;
          },
        })
        .catch((e: unknown) => e);
      expect(thrown).toBe(bug);
    });
  });
});
