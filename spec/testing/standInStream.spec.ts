/**
 * The stand-in Messages API streaming, read with plain fetch: the event
 * stream's framing and order as the wire doc shows it, and each scripted
 * fault (an error event, a cut, a stall, JSON to a stream request, pacing,
 * byte chunks).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  countingIds,
  encodeEvent,
  type ScriptedReply,
  ScriptInvalid,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
  toMessage,
  toolCall,
  toStreamEvents,
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
  stream: true,
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const post = (url: string, signal?: AbortSignal) =>
  fetch(`${url}/v1/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

interface Event {
  readonly event: string;
  readonly data: Record<string, unknown> & { type: string };
}

/**
 * The body as events, checking the framing on the way: each event is an
 * `event:` line and a `data:` line naming the same type, then a blank line.
 */
const eventsOf = (text: string): Event[] => {
  expect(text.endsWith("\n\n") || text === "").toBe(true);
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      const [eventLine, dataLine, ...more] = block.split("\n");
      expect(more).toEqual([]);
      expect(eventLine).toMatch(/^event: [a-z_]+$/);
      expect(dataLine).toMatch(/^data: \{/);
      const event = eventLine!.slice("event: ".length);
      const data = JSON.parse(dataLine!.slice("data: ".length));
      expect(data.type).toBe(event);
      return { event, data };
    });
};

/** Each read of the body as it came, with when it came. */
const chunksOf = async (response: Response): Promise<Array<{ chunk: Uint8Array; at: number }>> => {
  const reader = response.body!.getReader();
  const reads: Array<{ chunk: Uint8Array; at: number }> = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return reads;
    reads.push({ chunk: value, at: performance.now() });
  }
};

const play = async (reply: ScriptedReply) => {
  api = await standInMessagesApi([reply]);
  const response = await post(api.url);
  expect(response.status).toBe(200);
  return eventsOf(await response.text());
};

describe("the stand-in streaming", () => {
  it("streams text in the wire doc's order: start, ping, block, deltas, stop, message_delta, message_stop", async () => {
    const events = await play(
      says("Hello there", { pieces: ["Hel", "lo ", "there"], usage: { outputTokens: 7 } }),
    );
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[0]?.data.message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-sonnet-5-5",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    });
    expect(events[2]?.data).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    expect(events.slice(3, 6).map((e) => e.data.delta)).toEqual([
      { type: "text_delta", text: "Hel" },
      { type: "text_delta", text: "lo " },
      { type: "text_delta", text: "there" },
    ]);
    expect(events[7]?.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 7 },
    });
  });

  it("splits text into a count of pieces, or pieces of at most 20 characters", () => {
    const deltas = (reply: ScriptedReply) =>
      toStreamEvents(reply, countingIds())
        .filter((e) => e.type === "content_block_delta")
        .map((e) => (e.delta as { text: string }).text);
    expect(deltas(says("abcdef", { pieces: 3 }))).toEqual(["ab", "cd", "ef"]);
    // Whole characters: an emoji is never cut in two.
    expect(deltas(says("😀😀😀", { pieces: 3 }))).toEqual(["😀", "😀", "😀"]);
    expect(deltas(says("a".repeat(45))).map((p) => p.length)).toEqual([15, 15, 15]);
    expect(() => toStreamEvents(says("Hello", { pieces: ["Hel"] }), countingIds())).toThrow(
      /do not join/,
    );
  });

  it("pieces that do not join to the text: ScriptInvalid, naming the text", () => {
    const play = () => toStreamEvents(says("Hello", { pieces: ["Hel"] }), countingIds());
    expect(play).toThrow(ScriptInvalid);
    expect(play).toThrow('script: the scripted pieces do not join to the text "Hello"');
  });

  it("streams a tool call's input in input_json_delta pieces, the first one empty", async () => {
    const events = await play(
      toolCall("customers_find", { name: "Ada" }, { id: "toolu_01", text: "Looking." }),
    );
    const start = events.find((e) => e.event === "content_block_start" && e.data.index === 1)?.data;
    expect(start?.content_block).toEqual({
      type: "tool_use",
      id: "toolu_01",
      name: "customers_find",
      input: {},
      caller: { type: "direct" },
    });
    const pieces = events
      .filter((e) => e.event === "content_block_delta" && e.data.index === 1)
      .map((e) => e.data.delta as { type: string; partial_json: string });
    expect(pieces.every((p) => p.type === "input_json_delta")).toBe(true);
    expect(pieces[0]?.partial_json).toBe("");
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.map((p) => p.partial_json).join("")).toBe('{"name":"Ada"}');
    expect(events.at(-2)?.data.delta).toMatchObject({ stop_reason: "tool_use" });
  });

  it("cuts a tool's input where scripted, and sends an empty input as the empty piece alone", () => {
    const pieces = (reply: ScriptedReply) =>
      toStreamEvents(reply, countingIds())
        .filter((e) => e.type === "content_block_delta")
        .map((e) => (e.delta as { partial_json: string }).partial_json);
    expect(
      pieces({ toolCalls: [{ name: "a", input: { q: "\\d" }, splitAt: [1, 7, 8, 8, 99] }] }),
    ).toEqual(["", "{", '"q":"\\', "\\", 'd"}']);
    expect(pieces(toolCall("a", {}))).toEqual([""]);
  });

  it("streams thinking as thinking_delta pieces and one signature_delta", async () => {
    const events = await play({ thinking: "Look them up first.", text: "Done.", pieces: 2 });
    expect(events[2]?.data.content_block).toEqual({
      type: "thinking",
      thinking: "",
      signature: "",
    });
    expect(events.slice(3, 6).map((e) => e.data.delta)).toEqual([
      { type: "thinking_delta", thinking: "Look them" },
      { type: "thinking_delta", thinking: " up first." },
      { type: "signature_delta", signature: "sig_stand-in-2" },
    ]);
  });

  it("sends other blocks whole at their start, and the container in message_delta", async () => {
    const result = {
      type: "code_execution_tool_result",
      tool_use_id: "srvtoolu_1",
      content: { type: "code_execution_result", stdout: "3\n", stderr: "", return_code: 0 },
    };
    const events = await play({
      blocks: [result],
      text: "Three.",
      stopReason: "pause_turn",
      container: { id: "container_1", expiresAt: "2030-01-01T00:00:00Z" },
    });
    expect(events.find((e) => e.data.index === 1)?.data.content_block).toEqual(result);
    expect(events.at(-2)?.data.delta).toEqual({
      stop_reason: "pause_turn",
      stop_sequence: null,
      container: { id: "container_1", expires_at: "2030-01-01T00:00:00Z" },
    });
  });

  it("streams a refusal with its stop reason", async () => {
    const events = await play({ text: "I can't.", stopReason: "refusal" });
    expect(events.at(-2)?.data.delta).toMatchObject({ stop_reason: "refusal" });
  });

  it("carries the same content, stop reason and usage as the whole message", () => {
    const reply: ScriptedReply = {
      thinking: "Hmm.",
      text: "Looking é😀.",
      toolCalls: [{ name: "a", input: { q: 'say "hi" \\d' } }],
      usage: { inputTokens: 300, outputTokens: 12, cacheReadTokens: 250 },
    };
    const whole = toMessage(reply, countingIds());
    const events = toStreamEvents(reply, countingIds());
    const start = events[0]?.message as { id: string; usage: Record<string, number> };
    expect(start.id).toBe(whole.id);
    expect(start.usage).toEqual({ ...whole.usage, output_tokens: 1 });
    expect(events.at(-2)?.usage).toEqual({ output_tokens: 12 });
  });

  it("sends an error event after HTTP 200 and some events, then ends", async () => {
    const events = await play(says("Hello", { errorAfter: 3 }));
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "error",
    ]);
    expect(events[3]?.data).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    const other = await play(
      says("Hello", { errorAfter: { events: 0, type: "api_error", message: "boom" } }),
    );
    expect(other.map((e) => e.data)).toEqual([
      { type: "error", error: { type: "api_error", message: "boom" } },
    ]);
  });

  it("ends the body after cutAfter events, always before message_stop", async () => {
    expect((await play(says("Hello", { cutAfter: 4 }))).map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
    ]);
    await api?.close();
    const all = await play(says("Hello", { cutAfter: 1_000 }));
    expect(all.at(-1)?.event).toBe("message_delta");
  });

  it("resets the connection after cutAfter events when told to", async () => {
    api = await standInMessagesApi([says("Hello", { cutAfter: 2, cutHow: "reset" })]);
    const response = await post(api.url);
    expect(response.status).toBe(200);
    const error = await response.text().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe("terminated");
    await vi.waitFor(() => expect(api?.abandoned).toEqual([0]));
  });

  it("stalls after stallAfter events until the client leaves, and records that it left", async () => {
    api = await standInMessagesApi([says("Hello", { stallAfter: 2 })]);
    const controller = new AbortController();
    const response = await post(api.url, controller.signal);
    const reader = response.body!.getReader();
    let received = "";
    while (!received.includes("event: ping\n")) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    const next = reader.read().then(
      () => "more",
      (e: Error) => e.name,
    );
    const waited = await Promise.race([
      next,
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 200)),
    ]);
    expect(waited).toBe("still waiting");
    expect(api.abandoned).toEqual([]);
    controller.abort();
    expect(await next).toBe("AbortError");
    await vi.waitFor(() => expect(api?.abandoned).toEqual([0]));
  });

  it("answers a stream request with the whole JSON message when scripted", async () => {
    api = await standInMessagesApi([says("Hello", { jsonToStream: true })]);
    const response = await post(api.url);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()).content).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("writes each event on its own, paceMs apart", async () => {
    api = await standInMessagesApi([says("abcd", { pieces: 4, paceMs: 30 })]);
    const started = performance.now();
    const response = await post(api.url);
    const reads: number[] = [];
    for (const read of await chunksOf(response)) reads.push(read.at - started);
    // 10 events, 9 pauses of 30 ms; each event its own read.
    expect(reads.length).toBe(10);
    expect(reads.at(-1)).toBeGreaterThanOrEqual(265);
  });

  it("writes the body in chunks of the scripted byte sizes, splitting characters", async () => {
    const reply = says("héllo 😀 wörld", { chunkBytes: [1, 2, 3] });
    api = await standInMessagesApi([reply]);
    const response = await post(api.url);
    const chunks = (await chunksOf(response)).map((read) => read.chunk);
    const bytes = Buffer.concat(chunks);
    const expected = toStreamEvents(reply, countingIds("stand-in"), body.model)
      .map(encodeEvent)
      .join("");
    // The stand-in's ids also named the request, so only the message id differs.
    expect(bytes.toString("utf8").replace(/stand-in-\d+/g, "x")).toBe(
      expected.replace(/stand-in-\d+/g, "x"),
    );
    // Writes of 1, 2, 3 bytes: most arrive as reads of their own.
    expect(chunks.length).toBeGreaterThan(bytes.length / 2 / 2);
    // Some reads begin inside a multi-byte character (a UTF-8 continuation byte).
    expect(chunks.some((chunk) => (chunk[0]! & 0xc0) === 0x80)).toBe(true);
  });
});
