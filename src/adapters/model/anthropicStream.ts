/**
 * A step streamed over `messages.create({ …, stream: true })`: the raw
 * server-sent events read one by one and gathered into the message a whole
 * answer would be. Not `messages.stream()`: its partial-JSON parser throws on
 * some escapes in tool input (SDK issues #996/#986), and an abort with
 * nothing listening leaves an unhandled rejection (#383).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { type CodeInputReader, codeInputReader } from "../../runtime/prompt/codeInput.ts";
import type { ModelResponse } from "../../runtime/prompt/model.ts";
import { ModelError } from "../../runtime/prompt/model.ts";
import { streaming } from "./anthropicSdk.ts";
import { textOf, toModelError, toResponse, toStreamEventError } from "./anthropicWire.ts";

type StreamParams = Anthropic.MessageCreateParamsStreaming;

export interface StreamedStepOptions {
  /** The caller's signal (Stop). */
  readonly signal: AbortSignal;
  readonly onText?: ((piece: string) => void) | undefined;
  /** Code mode: a code execution's code as it is written (`""` when its block starts). */
  readonly onCode?: ((toolId: string, piece: string) => void) | undefined;
  /** No event for this long once the answer has started: the request is aborted. */
  readonly idleTimeoutMs: number;
}

/** How long the end of a body may take to come after `message_stop`. */
export const DRAIN_MS = 1_000;

/** Reads a stream's remaining events to its end, aborting the request after `ms`; never rejects. */
const drain = async (
  events: AsyncIterator<unknown>,
  request: AbortController,
  ms: number,
): Promise<void> => {
  const timer = setTimeout(() => request.abort(), ms);
  try {
    while ((await events.next()).done !== true) {}
  } catch {
    // The body broke off after the answer was complete: nothing of the step is lost.
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The most characters a block's input may stream (4 Mi, about 8 MB): far
 * more than any step's `max_tokens` lets the model write, so only a stream
 * gone wrong reaches it, and fails as "decode" rather than growing without
 * end.
 */
export const MAX_STREAMED_INPUT_CHARS = 4 * 1024 * 1024;

/** A block being gathered, with the `partial_json` of its input so far. */
interface Gathering {
  readonly block: Record<string, unknown>;
  json?: string;
  /** A code execution's: reads its code out of the input as it streams. */
  code?: CodeInputReader | undefined;
  stopped?: boolean;
}

/** What `onText` threw: the listener's own failure, passed on untouched, not a model error. */
class ListenerFailed {
  constructor(readonly cause: unknown) {}
}

/** `listener`, its throws marked as the listener's own (rethrown to the caller as they were). */
const guarded = <A extends unknown[]>(
  listener: ((...args: A) => void) | undefined,
): ((...args: A) => void) | undefined =>
  listener === undefined
    ? undefined
    : (...args: A) => {
        try {
          listener(...args);
        } catch (cause) {
          throw new ListenerFailed(cause);
        }
      };

/**
 * One step, streamed. Resolves at `message_stop` with what a whole answer
 * has; rejects with a {@link ModelError}: the API's error (before the stream
 * or as an `event: error` in it), "decode" for a stream that ends before
 * `message_stop` or a tool input that is not JSON, "timeout" when no event
 * comes for `idleTimeoutMs`, "aborted" when the signal is. Only the returned
 * promise rejects: nothing else is left to reject unheard (SDK issue #383).
 */
export const streamed = async (
  client: Anthropic,
  params: Omit<StreamParams, "stream">,
  { signal, onText, onCode, idleTimeoutMs }: StreamedStepOptions,
): Promise<ModelResponse> => {
  // A request of our own, so the watchdog can abort it without touching the caller's signal.
  const request = new AbortController();
  const stop = () => request.abort();
  if (signal.aborted) request.abort();
  else signal.addEventListener("abort", stop, { once: true });
  const tell = guarded(onText);
  const tellCode = guarded(onCode);
  let started = false;
  let idle = false;
  let done: ModelResponse | undefined;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  /** The body was read to its end: there is nothing left to cancel. */
  let drained = false;
  try {
    const response = await client.messages
      .create({ ...params, stream: true }, { signal: request.signal })
      .asResponse();
    started = true;
    // The SDK's own timeout covers the wait for headers; from here on, silence is ours to time.
    watchdog = setTimeout(() => {
      idle = true;
      request.abort();
    }, idleTimeoutMs);
    if (isJson(response)) {
      // A gateway that answers a stream request whole: its text is told at once.
      const message = toResponse(await response.json());
      drained = true;
      const text = textOf(message);
      if (text !== "") tell?.(text);
      return message;
    }
    const gathered = new Gatherer(tell, tellCode);
    const events = streaming.Stream.rawEvents(response, request)[Symbol.asyncIterator]();
    for (;;) {
      const next = await events.next();
      if (next.done === true) break;
      watchdog.refresh();
      if (gathered.take(next.value.event, next.value.data)) {
        done = gathered.response();
        break;
      }
    }
    if (done === undefined) {
      drained = true;
      throw new ModelError({ kind: "decode", message: "the stream ended before message_stop" });
    }
    // The step is answered at message_stop. What is left of the body (normally just its end) is
    // read in the background, so the connection can be used again, and cut off if it lingers.
    drained = true;
    void drain(events, request, Math.min(idleTimeoutMs, DRAIN_MS));
    return done;
  } catch (error) {
    if (done !== undefined) return done;
    if (error instanceof ListenerFailed) throw error.cause;
    if (signal.aborted) throw toModelError(error, signal);
    if (idle) {
      throw new ModelError({
        kind: "timeout",
        message: `no event from the stream for ${idleTimeoutMs} ms`,
      });
    }
    if (!started || error instanceof ModelError) throw toModelError(error);
    // The body broke off after the answer started (a reset, a proxy giving up).
    const mapped = toModelError(error);
    if (mapped.kind !== "connection") throw mapped;
    throw new ModelError({
      kind: "decode",
      message: `the stream ended before message_stop (${mapped.message})`,
    });
  } finally {
    clearTimeout(watchdog);
    signal.removeEventListener("abort", stop);
    // Failed or given up before the body's end: nothing more is read from this connection.
    // (A body read to its end needs no abort, which would cost three DOM events a step.)
    if (!drained) request.abort();
  }
};

const isJson = (response: Response): boolean => {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
  return type === "application/json" || type.endsWith("+json");
};

/** The message gathered from its events, as the SDK's own accumulator builds it. */
class Gatherer {
  readonly #onText: ((piece: string) => void) | undefined;
  readonly #onCode: ((toolId: string, piece: string) => void) | undefined;
  #message: Record<string, unknown> | undefined;
  #usage: Record<string, unknown> = {};
  readonly #blocks: Gathering[] = [];

  constructor(
    onText: ((piece: string) => void) | undefined,
    onCode: ((toolId: string, piece: string) => void) | undefined,
  ) {
    this.#onText = onText;
    this.#onCode = onCode;
  }

  /** Takes one server-sent event; true at `message_stop`. */
  take(event: string | null, data: string): boolean {
    if (event === null || event === "ping") return false;
    if (event === "error") throw toStreamEventError(data);
    if (data === "") return false;
    const parsed = parse(data, "an event's data is not JSON") as Record<string, unknown>;
    switch (parsed.type) {
      case "message_start": {
        const message = parsed.message as Record<string, unknown>;
        this.#message = { ...message };
        this.#usage = { ...(message.usage as Record<string, unknown>) };
        return false;
      }
      case "content_block_start":
        this.#start(parsed.index as number, parsed.content_block as Record<string, unknown>);
        return false;
      case "content_block_delta":
        this.#delta(this.#at(parsed.index), parsed.delta as Record<string, unknown>);
        return false;
      case "content_block_stop":
        this.#stop(this.#at(parsed.index));
        return false;
      case "message_delta":
        this.#messageDelta(parsed);
        return false;
      case "message_stop":
        return true;
      default:
        return false;
    }
  }

  response(): ModelResponse {
    if (this.#message === undefined) {
      throw new ModelError({ kind: "decode", message: "the stream had no message_start" });
    }
    // An input is parsed when its block stops: one that never stopped would be a call with `{}`.
    const open = this.#blocks.find((gathering) => "input" in gathering.block && !gathering.stopped);
    if (open !== undefined) {
      throw new ModelError({
        kind: "decode",
        message: `the input of ${String(open.block.name)} never ended: its block did not stop before message_stop`,
      });
    }
    return toResponse({
      ...this.#message,
      content: this.#blocks.map((gathering) => gathering.block),
      usage: this.#usage,
    });
  }

  #at(index: unknown): Gathering {
    const gathering = typeof index === "number" ? this.#blocks[index] : undefined;
    if (gathering === undefined) {
      throw new ModelError({ kind: "decode", message: `no content block ${String(index)}` });
    }
    return gathering;
  }

  /** A block starts; a code execution's code is told from here on, as it streams. */
  #start(index: number, started: Record<string, unknown>): void {
    const gathering: Gathering = { block: { ...started } };
    this.#blocks[index] = gathering;
    if (
      this.#onCode !== undefined &&
      started.type === "server_tool_use" &&
      started.name === "code_execution" &&
      typeof started.id === "string"
    ) {
      gathering.code = codeInputReader();
      this.#onCode(started.id, "");
    }
  }

  #delta(gathering: Gathering, delta: Record<string, unknown>): void {
    const { block } = gathering;
    switch (delta.type) {
      case "text_delta": {
        const text = delta.text as string;
        block.text = ((block.text as string | undefined) ?? "") + text;
        this.#onText?.(text);
        return;
      }
      case "input_json_delta": {
        const piece = String(delta.partial_json);
        gathering.json = (gathering.json ?? "") + piece;
        if (gathering.json.length > MAX_STREAMED_INPUT_CHARS) {
          throw new ModelError({
            kind: "decode",
            message: `the input of ${String(block.name)} passed ${MAX_STREAMED_INPUT_CHARS} characters before its block stopped`,
          });
        }
        const code = gathering.code?.read(piece);
        if (code) this.#onCode?.(block.id as string, code);
        return;
      }
      case "thinking_delta":
        block.thinking =
          ((block.thinking as string | undefined) ?? "") + (delta.thinking as string);
        return;
      case "signature_delta":
        block.signature = delta.signature;
        return;
      case "citations_delta":
        block.citations = [...((block.citations as unknown[] | null) ?? []), delta.citation];
        return;
      default:
        return;
    }
  }

  #stop(gathering: Gathering): void {
    gathering.stopped = true;
    gathering.code = undefined;
    if (gathering.json === undefined) return;
    // An input that streamed nothing is an empty object, as the API means it.
    gathering.block.input =
      gathering.json === ""
        ? {}
        : parse(gathering.json, `the input of ${String(gathering.block.name)} is not JSON`);
  }

  #messageDelta(event: Record<string, unknown>): void {
    if (this.#message === undefined) return;
    const delta = (event.delta ?? {}) as Record<string, unknown>;
    this.#message.stop_reason = delta.stop_reason;
    this.#message.stop_sequence = delta.stop_sequence;
    // Null at message_start; the delta's, when it sends any, says more about the stop reason.
    if (delta.stop_details !== undefined) this.#message.stop_details = delta.stop_details;
    if (delta.container != null) this.#message.container = delta.container;
    // Counters here are whole-message totals, sent when they apply: they overwrite, never add.
    for (const [key, value] of Object.entries((event.usage ?? {}) as Record<string, unknown>)) {
      if (value != null) this.#usage[key] = value;
    }
  }
}

const parse = (json: string, what: string): unknown => {
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new ModelError({ kind: "decode", message: `${what}: ${(error as Error).message}` });
  }
};
