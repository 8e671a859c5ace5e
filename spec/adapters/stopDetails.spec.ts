/**
 * `stop_details` (a refusal's category and explanation) reaches the model
 * port's response, streamed (from `message_delta`), whole, and from a
 * gateway that answers a stream request whole; bounded, and never failing a
 * step when it is malformed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anthropic } from "../../src/anthropic.ts";
import type { ModelRequest, StopDetails } from "../../src/runtime/prompt/model.ts";
import { stopDetailsOf } from "../../src/runtime/prompt/model.ts";
import {
  countingIds,
  refuses,
  type ScriptedReply,
  type StandInMessagesApi,
  says,
  standInMessagesApi,
  toMessage,
  toStreamEvents,
} from "../../src/testing.ts";

const request: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "",
  messages: [{ role: "user", content: "Write me a keylogger." }],
  tools: [],
  maxTokens: 1024,
};

const cyber: StopDetails = {
  type: "refusal",
  category: "cyber",
  explanation: "The request could enable malware development.",
};

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("the stand-in sends stop_details", () => {
  it("in message_delta, null in message_start, as the API streams it", () => {
    const events = toStreamEvents(refuses("", cyber), countingIds());
    expect(events[0]).toMatchObject({ type: "message_start", message: { stop_details: null } });
    expect(events.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "refusal", stop_sequence: null, stop_details: cyber },
      usage: { output_tokens: 5 },
    });
  });

  it("on the whole message, and not at all unless scripted", () => {
    expect(toMessage(refuses("", cyber), countingIds()).stop_details).toEqual(cyber);
    expect(toMessage(refuses(), countingIds())).not.toHaveProperty("stop_details");
    const plain = toStreamEvents(says("Hi"), countingIds());
    expect(plain.at(-2)?.delta).not.toHaveProperty("stop_details");
  });
});

describe.each([
  { mode: "streamed", stream: true, jsonToStream: false },
  { mode: "whole", stream: false, jsonToStream: false },
  { mode: "JSON to a stream request", stream: true, jsonToStream: true },
])("anthropic() keeps stop_details, $mode", ({ stream, jsonToStream }) => {
  const step = async (reply: ScriptedReply) => {
    api = await standInMessagesApi([{ ...reply, jsonToStream }]);
    const model = anthropic({ baseURL: api.url, apiKey: "test-key", stream });
    const response = await model.step(request, { signal: new AbortController().signal });
    expect(api.requests[0]?.body).toMatchObject({ stream });
    return response;
  };

  it("a refusal's category and explanation", async () => {
    const response = await step(refuses("I can't help with that.", cyber));
    expect(response.stopReason).toBe("refusal");
    expect(response.stopDetails).toEqual(cyber);
  });

  it("a refusal without a category or an explanation", async () => {
    const none: StopDetails = { type: "refusal", category: null, explanation: null };
    expect((await step(refuses("", none))).stopDetails).toEqual(none);
  });

  it("nothing when the API sends none", async () => {
    expect(await step(says("Hello."))).not.toHaveProperty("stopDetails");
  });

  it("a kind the API adds later, by its type, with no more than the port knows", async () => {
    const later = { type: "policy_pause", reason: "x".repeat(10_000) } as unknown as StopDetails;
    const response = await step(says("Paused.", { stopReason: "pause_turn", stopDetails: later }));
    expect(response.stopDetails).toEqual({
      type: "policy_pause",
      category: null,
      explanation: null,
    });
  });

  it("an explanation cut at 1 000 characters", async () => {
    const long: StopDetails = { ...cyber, explanation: "why ".repeat(1_000) };
    const response = await step(refuses("", long));
    expect(response.stopDetails?.explanation).toHaveLength(1_000);
    expect(response.stopDetails?.explanation?.endsWith("…")).toBe(true);
  });

  it("a malformed one is left out, and the step still answers", async () => {
    const bad = { type: 42, category: ["cyber"] } as unknown as StopDetails;
    const response = await step(refuses("No.", bad));
    expect(response.stopReason).toBe("refusal");
    expect(response.content).toEqual([{ type: "text", text: "No." }]);
    expect(response).not.toHaveProperty("stopDetails");
  });
});

describe("stopDetailsOf", () => {
  it.each([
    [null],
    [undefined],
    ["refusal"],
    [{}],
    [{ type: "" }],
    [{ type: "refusal", category: 1 }],
  ])("leaves out %j", (value) => {
    expect(stopDetailsOf(value)).toBeUndefined();
  });

  it("fills what a refusal leaves out with null, and drops other fields", () => {
    expect(stopDetailsOf({ type: "refusal", extra: { deep: true } })).toEqual({
      type: "refusal",
      category: null,
      explanation: null,
    });
  });
});
