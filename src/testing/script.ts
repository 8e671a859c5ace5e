/**
 * Scripts of model responses, shared by the fake model and the stand-in
 * Messages API: one {@link ScriptedResponse} per model step, either a reply
 * or an API error. Plain data, no SDK, so a script reads the same whichever
 * twin plays it.
 */
import { Data } from "effect";
import type { Usage } from "../runtime/log/events.ts";
import type { Ids } from "../runtime/ports/ids.ts";
import type { ContentBlock, StopDetails, StopReason } from "../runtime/prompt/model.ts";

/**
 * A script that cannot be played (pieces that do not join to their text): thrown when it is played.
 *
 * @example
 * ```ts
 * try {
 *   await turn;
 * } catch (error) {
 *   if (error instanceof ScriptInvalid) console.error(error.reason); // fix the script, not the code
 * }
 * ```
 */
export class ScriptInvalid extends Data.TaggedError("ScriptInvalid")<{
  readonly reason: string;
}> {
  override get message(): string {
    return `script: ${this.reason}`;
  }
}

/** A tool call the model makes. `id` defaults to a fresh `toolu_…` id. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly input: unknown;
  readonly id?: string;
  /** Who calls it; `{type: "direct"}` unless code execution does. */
  readonly caller?: { readonly type: string; readonly tool_id?: string };
  /**
   * Streamed: where the input's JSON text (`JSON.stringify(input)`) is cut
   * into `input_json_delta` pieces, as offsets into that string; anywhere,
   * inside an escape or a surrogate pair too. A first piece `""` is always
   * sent, as the API does. Three near-equal pieces unless given; an input of
   * `{}` is sent as the `""` piece alone.
   */
  readonly splitAt?: ReadonlyArray<number>;
}

/** One model reply. Blocks are sent in this order: thinking, text, `blocks`, tool calls. */
export interface ScriptedReply {
  readonly text?: string;
  readonly thinking?: string;
  /** Other blocks as the API sends them (`server_tool_use`, `code_execution_tool_result`, …). */
  readonly blocks?: ReadonlyArray<ContentBlock>;
  /**
   * Streamed: where the input's JSON text of each of `blocks` that has an
   * input (a `server_tool_use`'s `{"code": …}`) is cut into `input_json_delta`
   * pieces, as a tool call's `splitAt`; three near-equal pieces unless given.
   * `fakeModel` tells a code execution's code in the same pieces.
   */
  readonly blockSplitAt?: ReadonlyArray<number>;
  readonly toolCalls?: ReadonlyArray<ScriptedToolCall>;
  /** `tool_use` when there are tool calls, `end_turn` otherwise. */
  readonly stopReason?: StopReason;
  /**
   * The message's `stop_details` (a refusal's category and explanation):
   * on the whole message, and in the stream's `message_delta` (null in its
   * `message_start`). Left out of both unless given.
   */
  readonly stopDetails?: StopDetails;
  /**
   * Token counts; input 10 and output 5 unless given. `cacheWrite1hTokens`
   * is sent as `cache_creation.ephemeral_1h_input_tokens`, the rest of
   * `cacheWriteTokens` as its five-minute part. A stand-in that caches
   * prompts counts the input side itself.
   */
  readonly usage?: Partial<Usage>;
  /**
   * A tool search the model runs first (the stand-in and `fakeModel` play
   * it over the request's deferred tools): its query (a pattern, with the
   * regex tool), answered with the references of the tools that match
   * best. Its `server_tool_use` and `tool_search_tool_result` come after
   * the thinking and text, before `blocks` and the tool calls.
   */
  readonly searchTools?: string;
  readonly container?: { readonly id: string; readonly expiresAt: string };
  /** The model the message names; the stand-in uses the request's model unless given. */
  readonly model?: string;
  /** Real milliseconds to wait before answering (to abort or time out a request in flight). */
  readonly delayMs?: number;
  /**
   * Streamed: how `text` (and `thinking`) is told: in this many near-equal
   * pieces (whole characters), or in these pieces, which must join to `text`.
   * Pieces of at most 20 characters unless given.
   */
  readonly pieces?: number | ReadonlyArray<string>;
  /**
   * Streamed: real milliseconds between one write and the next; 0 (the
   * default) still writes each event (or chunk) on its own, a turn of the
   * event loop apart.
   */
  readonly paceMs?: number;
  /**
   * Streamed: the body written in chunks of these sizes in bytes, cycled, not
   * an event a write: splits land anywhere, inside multi-byte characters too.
   */
  readonly chunkBytes?: ReadonlyArray<number>;
  /**
   * Streamed: after this many events (HTTP 200 already sent), an `event:
   * error` (`overloaded_error`, "Overloaded" unless given) and the end of
   * the body. At most the events before `message_stop`.
   */
  readonly errorAfter?: number | StreamError;
  /**
   * Streamed: the body ends after this many events, before `message_stop`:
   * cleanly (`"end"`, the default), or (`"reset"`) by closing the connection
   * mid-body, so the client's read breaks ("terminated").
   */
  readonly cutAfter?: number;
  readonly cutHow?: "end" | "reset";
  /** Streamed: after this many events nothing more is written, until the client leaves. */
  readonly stallAfter?: number;
  /** Streams: send every event, `message_stop` included, then keep the connection open (a lingering gateway). */
  readonly lingerAfterStop?: boolean;
  /** Streamed: a stream request answered with the whole JSON message, as some gateways do. */
  readonly jsonToStream?: boolean;
}

/** An `event: error` sent inside a stream, after HTTP 200. */
export interface StreamError {
  readonly events: number;
  readonly type?: string;
  readonly message?: string;
}

/** An API error, as an HTTP status and the body's `error.type` and `error.message`. */
export interface ScriptedFailure {
  readonly error: {
    readonly status: number;
    readonly type: string;
    readonly message: string;
    /** Sent as `x-should-retry`; left out (the SDK decides by status) unless given. */
    readonly shouldRetry?: boolean;
    /**
     * Sent as `retry-after-ms` on a retryable status, 1 unless given. The SDK
     * reads 0 as "no advice" and falls back to its own backoff (0.5 s, 1 s, …).
     */
    readonly retryAfterMs?: number;
  };
  readonly delayMs?: number;
}

/** What one model step answers: a reply or an error. */
export type ScriptedResponse = ScriptedReply | ScriptedFailure;

/** The Messages API's message, as `POST /v1/messages` returns it. */
export interface WireMessage {
  readonly id: string;
  readonly type: "message";
  readonly role: "assistant";
  readonly model: string;
  readonly content: ReadonlyArray<ContentBlock>;
  readonly stop_reason: StopReason;
  readonly stop_sequence: null;
  readonly stop_details?: StopDetails | null;
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_creation_input_tokens: number;
    readonly cache_read_input_tokens: number;
    readonly cache_creation: {
      readonly ephemeral_5m_input_tokens: number;
      readonly ephemeral_1h_input_tokens: number;
    };
  };
  readonly container?: { readonly id: string; readonly expires_at: string };
}

/** The Messages API's error body. */
export interface WireError {
  readonly type: "error";
  readonly error: { readonly type: string; readonly message: string };
}

/** The model used when neither the script nor the request names one. */
export const SCRIPTED_MODEL = "claude-scripted";

/**
 * Whether a scripted response is an error.
 *
 * @example
 * ```ts
 * const errors = script.filter(isFailure).map((failure) => failure.error.status); // [529]
 * ```
 */
export const isFailure = (response: ScriptedResponse): response is ScriptedFailure =>
  "error" in response;

/**
 * A text answer that ends the turn.
 *
 * @example
 * ```ts
 * const script = [says("Three customers match.", { usage: { inputTokens: 120 } })];
 * ```
 */
export const says = (text: string, more: Omit<ScriptedReply, "text"> = {}): ScriptedReply => ({
  ...more,
  text,
});

/**
 * One tool call (stop reason `tool_use`), with text before it if given.
 *
 * @example
 * ```ts
 * const script = [toolCall("customers_find", { name: "Ada" }), says("Found Ada.")];
 * ```
 */
export const toolCall = (
  name: string,
  input: unknown,
  more: Omit<ScriptedReply, "toolCalls"> & { readonly id?: string } = {},
): ScriptedReply => {
  const { id, ...reply } = more;
  return { ...reply, toolCalls: [id === undefined ? { name, input } : { name, input, id }] };
};

/**
 * A refusal: stop reason `refusal`, with whatever text came before it, and
 * the API's `stop_details` when given.
 *
 * @example
 * ```ts
 * const script = [refuses("", { type: "refusal", category: "cyber", explanation: null })];
 * ```
 */
export const refuses = (text = "", stopDetails?: StopDetails): ScriptedReply => ({
  text,
  stopReason: "refusal",
  ...(stopDetails === undefined ? {} : { stopDetails }),
});

/**
 * An API error.
 *
 * @example
 * ```ts
 * const script = [fails(401, "authentication_error", "invalid x-api-key")];
 * ```
 */
export const fails = (
  status: number,
  type: string,
  message: string,
  more: Pick<ScriptedFailure["error"], "shouldRetry" | "retryAfterMs"> = {},
): ScriptedFailure => ({ error: { status, type, message, ...more } });

/**
 * The API's 529: `overloaded_error`, "Overloaded".
 *
 * @example
 * ```ts
 * // The first step is overloaded, the retry answers.
 * const model = fakeModel([overloaded(), says("Three invoices are overdue.")]);
 * ```
 */
export const overloaded = (): ScriptedFailure => fails(529, "overloaded_error", "Overloaded");

/**
 * A scripted reply as the API's message JSON. Ids come from `ids`
 * (`msg_<id>`, `toolu_<id>`) unless the script gives a tool call's id.
 *
 * @example
 * ```ts
 * toMessage(says("Hi"), countingIds("t")).content; // [{ type: "text", text: "Hi" }]
 * ```
 */
export const toMessage = (reply: ScriptedReply, ids: Ids, model?: string): WireMessage => {
  const content: ContentBlock[] = [];
  if (reply.thinking !== undefined) {
    content.push({ type: "thinking", thinking: reply.thinking, signature: `sig_${ids.next()}` });
  }
  if (reply.text !== undefined && reply.text !== "") {
    content.push({ type: "text", text: reply.text });
  }
  content.push(...(reply.blocks ?? []));
  const calls = reply.toolCalls ?? [];
  for (const call of calls) {
    content.push({
      type: "tool_use",
      id: call.id ?? `toolu_${ids.next()}`,
      name: call.name,
      input: call.input,
      caller: call.caller ?? { type: "direct" },
    });
  }
  const usage = reply.usage ?? {};
  return {
    id: `msg_${ids.next()}`,
    type: "message",
    role: "assistant",
    model: reply.model ?? model ?? SCRIPTED_MODEL,
    content,
    stop_reason: reply.stopReason ?? (calls.length > 0 ? "tool_use" : "end_turn"),
    stop_sequence: null,
    ...(reply.stopDetails === undefined ? {} : { stop_details: reply.stopDetails }),
    usage: {
      input_tokens: usage.inputTokens ?? 10,
      output_tokens: usage.outputTokens ?? 5,
      cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
      cache_read_input_tokens: usage.cacheReadTokens ?? 0,
      cache_creation: {
        ephemeral_5m_input_tokens: (usage.cacheWriteTokens ?? 0) - (usage.cacheWrite1hTokens ?? 0),
        ephemeral_1h_input_tokens: usage.cacheWrite1hTokens ?? 0,
      },
    },
    ...(reply.container === undefined
      ? {}
      : { container: { id: reply.container.id, expires_at: reply.container.expiresAt } }),
  };
};

/**
 * A scripted failure as the API's error body.
 *
 * @example
 * ```ts
 * toErrorBody(overloaded()); // { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
 * ```
 */
export const toErrorBody = (failure: ScriptedFailure): WireError => ({
  type: "error",
  error: { type: failure.error.type, message: failure.error.message },
});
