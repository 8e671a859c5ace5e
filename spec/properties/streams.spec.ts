/**
 * Streams and faults, as properties, with the real SDK over real HTTP against
 * the stand-in Messages API (one server per property, playing the reply each
 * run sets):
 *
 * - streamed ≡ whole: for random replies, a streamed step gives exactly the
 *   content, stop reason, usage and container the whole step gives;
 * - S1: an `event: error` anywhere after HTTP 200 is an overloaded error;
 * - S2: tool input (escapes, quotes, unicode, emoji) cut anywhere into
 *   `input_json_delta` pieces, and the body's bytes cut anywhere (inside
 *   multi-byte characters too), give the same message;
 * - S3: a stream cut anywhere before `message_stop` rejects with "decode",
 *   so the caller gets no tool call of the cut step to run.
 *
 * Tool inputs are drawn as JSON carries them (no -0: see ./wire.ts), so "as
 * sent" can be checked exactly.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toResponse } from "../../src/adapters/model/anthropicWire.ts";
import { anthropic } from "../../src/anthropic.ts";
import type { Ids } from "../../src/runtime/ports/ids.ts";
import {
  ModelError,
  type ModelRequest,
  type ModelResponse,
} from "../../src/runtime/prompt/model.ts";
import {
  countingIds,
  type ScriptedReply,
  type StandInMessagesApi,
  standInMessagesApi,
  toMessage,
  toStreamEvents,
} from "../../src/testing.ts";
import { runs, timeoutFor } from "./runs.ts";
import { wireDouble, wireJsonValue } from "./wire.ts";

const NUM_RUNS = 1000;
/**
 * Each property takes 2–5 s here alone; room for a busy machine running the
 * whole suite (and more with ELYRA_PROPERTY_SCALE above 1).
 */
const TIMEOUT_MS = timeoutFor(120_000);

const request: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "",
  messages: [{ role: "user", content: "Go" }],
  tools: [],
  maxTokens: 1024,
};

/** Ids counted again from 1 before each request, so two answers to one reply match. */
const resettable = (): Ids & { reset: () => void } => {
  let n = 0;
  return {
    next: () => `s-${++n}`,
    reset: () => {
      n = 0;
    },
  };
};

let api: StandInMessagesApi;
let current: ScriptedReply = {};
const ids = resettable();
/** Every read of a response body the SDK made, its first byte: to see splits really happen. */
const firstBytes: number[] = [];

beforeAll(async () => {
  api = await standInMessagesApi(() => current, { ids });
});
afterAll(() => api.close());

const streamed = () =>
  anthropic({
    baseURL: api.url,
    apiKey: "test-key",
    maxRetries: 0,
    // The real fetch, watched: each chunk of the body as the SDK reads it.
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.body === null) return response;
      const watched = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            firstBytes.push(chunk[0] ?? 0);
            controller.enqueue(chunk);
          },
        }),
      );
      return new Response(watched, { status: response.status, headers: response.headers });
    },
  });
const whole = () =>
  anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0, stream: false });

/** Plays `reply` through `model`, ids from 1; the response or the ModelError, and the text told. */
const play = async (model: ReturnType<typeof anthropic>, reply: ScriptedReply) => {
  current = reply;
  ids.reset();
  const pieces: string[] = [];
  const outcome: ModelResponse | ModelError = await model
    .step(request, { signal: AbortSignal.timeout(10_000), onText: (p) => pieces.push(p) })
    .catch((error: unknown) => {
      if (error instanceof ModelError) return error;
      throw error;
    });
  return { outcome, pieces };
};

// Strings the partial-JSON parsers of this world trip on: escapes, quotes, unicode, emoji.
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\\d", "\\", '"', '\\"', "\\u00e9", "\n", "\t", "/", "{", "}", ",", ":"),
    fc.constantFrom("é", "€", "ß", "中", "😀", "👩‍💻", "🇫🇷", "\u2028", "\u0000", "\u007f"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 24,
});
const input = fc.dictionary(
  tricky,
  fc.oneof(
    tricky,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tricky, { maxLength: 3 }),
    wireJsonValue({ maxDepth: 2 }),
  ),
  { maxKeys: 4 },
);
/** A tool input for S2: small enough to cut at every boundary, with every kind of trouble in it. */
const smallInput = fc.dictionary(
  fc.string({ unit: "grapheme-ascii", maxLength: 6 }),
  fc.oneof(tricky, fc.integer(), wireDouble(), fc.array(tricky, { maxLength: 2 })),
  { maxKeys: 3 },
);
/**
 * Write sizes, cycled: a few small ones that split characters, then a larger
 * one that keeps a run quick.
 */
const chunkBytes = fc
  .tuple(
    fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }),
    fc.integer({ min: 64, max: 512 }).noBias(),
  )
  .map(([small, large]) => [...small, large]);
/** How a body is written: an event a write (the default), in chunks, or all at once. */
const writes = fc.oneof(fc.constant(undefined), chunkBytes, fc.constant([1 << 20]));
const pieces = fc.integer({ min: 1, max: 12 });
const usage = fc.record(
  {
    inputTokens: fc.nat(100_000),
    outputTokens: fc.nat(10_000),
    cacheReadTokens: fc.nat(100_000),
    cacheWriteTokens: fc.nat(100_000),
  },
  { requiredKeys: [] },
);

/** Any reply the API could stream: thinking, text, server blocks, tool calls, every stop reason. */
const reply: fc.Arbitrary<ScriptedReply> = fc
  .record(
    {
      thinking: tricky,
      text: tricky,
      blocks: fc.array(
        fc.oneof(
          fc.record({
            type: fc.constant("server_tool_use"),
            id: fc.constant("srvtoolu_1"),
            name: fc.constant("code_execution"),
            input: fc.record({ code: tricky }),
          }),
          fc.record({
            type: fc.constant("code_execution_tool_result"),
            tool_use_id: fc.constant("srvtoolu_1"),
            content: fc.record({ type: fc.constant("code_execution_result"), stdout: tricky }),
          }),
        ),
        { maxLength: 2 },
      ),
      toolCalls: fc.array(
        fc.record({ name: fc.constantFrom("customers_find", "invoices_index"), input }),
        { maxLength: 3 },
      ),
      stopReason: fc.constantFrom(
        "end_turn",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "pause_turn",
        "refusal",
        "model_context_window_exceeded",
      ),
      usage,
      container: fc.record({
        id: fc.constant("container_1"),
        expiresAt: fc.constant("2030-01-01"),
      }),
      pieces,
    },
    { requiredKeys: [] },
  )
  .chain((r) =>
    writes.map(
      (chunks): ScriptedReply => (chunks === undefined ? r : { ...r, chunkBytes: chunks }),
    ),
  );

describe("streamed ≡ whole", () => {
  it("a streamed step gives what the whole step gives, and tells its text in pieces", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const stream = streamed();
    const json = whole();
    await fc.assert(
      fc.asyncProperty(reply, async (r) => {
        const a = await play(stream, r);
        const b = await play(json, r);
        expect(a.outcome).not.toBeInstanceOf(ModelError);
        expect(a.outcome).toEqual(b.outcome);
        expect(a.pieces.join("")).toBe(b.pieces.join(""));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe("S1: an error event after HTTP 200", () => {
  it("is an overloaded error wherever it lands, never a short success", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const stream = streamed();
    await fc.assert(
      fc.asyncProperty(reply, fc.nat(), async (r, at) => {
        const events = toStreamEvents(r, countingIds()).length;
        const { outcome } = await play(stream, { ...r, errorAfter: at % events });
        expect(outcome).toBeInstanceOf(ModelError);
        expect(outcome).toMatchObject({ kind: "overloaded", status: 529 });
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe("S2: tool input and bytes split anywhere", () => {
  it("gives the same message, the inputs exactly as sent", { timeout: TIMEOUT_MS }, async () => {
    const stream = streamed();
    const splits = fc.oneof(
      fc.constant("every" as const),
      fc.array(fc.nat({ max: 300 }), { maxLength: 16 }),
    );
    const reads = firstBytes.length;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ input: fc.oneof(smallInput, input), splits }), {
          minLength: 1,
          maxLength: 2,
        }),
        fc.option(tricky, { nil: undefined }),
        chunkBytes,
        async (calls, text, chunks) => {
          const r: ScriptedReply = {
            ...(text === undefined ? {} : { text }),
            chunkBytes: chunks,
            toolCalls: calls.map((call, i) => {
              const json = JSON.stringify(call.input);
              // Every boundary, for inputs short enough to keep a run quick; else the drawn ones.
              const splitAt =
                call.splits === "every"
                  ? json.length <= 120
                    ? Array.from({ length: json.length }, (_, at) => at)
                    : Array.from({ length: 16 }, (_, k) => Math.floor((k * json.length) / 16))
                  : call.splits;
              return { id: `toolu_${i}`, name: "customers_find", input: call.input, splitAt };
            }),
          };
          const { outcome } = await play(stream, r);
          expect(outcome).toEqual(toResponse(toMessage(r, countingIds(), request.model)));
          const inputs = (outcome as ModelResponse).content.map(
            (b) => (b as { input?: unknown }).input,
          );
          expect(inputs.filter((i) => i !== undefined)).toEqual(calls.map((call) => call.input));
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
    // The splits happened: reads that begin inside a multi-byte character (a continuation byte).
    const split = firstBytes.slice(reads).filter((byte) => (byte & 0xc0) === 0x80).length;
    expect(split).toBeGreaterThan(100);
  });
});

describe("S3: a stream cut before message_stop", () => {
  it("rejects with decode wherever it is cut, ended or reset: no tool call to run", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const stream = streamed();
    await fc.assert(
      fc.asyncProperty(
        reply.filter((r) => (r.toolCalls?.length ?? 0) > 0),
        fc.nat(),
        fc.constantFrom("end" as const, "reset" as const),
        async (r, at, how) => {
          const events = toStreamEvents(r, countingIds()).length;
          const { outcome, pieces } = await play(stream, {
            ...r,
            cutAfter: at % events,
            cutHow: how,
          });
          expect(outcome).toBeInstanceOf(ModelError);
          expect(outcome).toMatchObject({ kind: "decode" });
          // What was told is a beginning of the text, nothing more.
          expect((r.text ?? "").startsWith(pieces.join(""))).toBe(true);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});
