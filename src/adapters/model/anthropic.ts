/**
 * The model port over `@anthropic-ai/sdk`: one `messages.create` per step,
 * streamed unless told otherwise. The SDK does the HTTP, the auth header and
 * the retries (2 by default, on 408/409/429/5xx before the response starts);
 * this file chooses streamed or whole, and the files beside it translate.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ClientOptions } from "@anthropic-ai/sdk";
import { type Model, ModelError, type ModelResponse } from "../../runtime/prompt/model.ts";
import { sdk } from "./anthropicSdk.ts";
import { streamed } from "./anthropicStream.ts";
import { textOf, toModelError, toParams, toResponse } from "./anthropicWire.ts";
import type { PromptCaching } from "./cacheLayout.ts";

/** How the adapter asks: streamed or whole, and how long a silent stream may last. */
export interface AnthropicStreaming {
  /**
   * Stream each step (`stream: true`), telling text to `onText` as it comes.
   * True unless given. A gateway that refuses to stream (a 422 that says
   * "Streaming") makes the adapter ask whole, from then on.
   */
  readonly stream?: boolean;
  /**
   * Milliseconds a started stream may go without an event (pings count)
   * before the request is aborted and the step fails with "timeout". The
   * SDK's own `timeout` covers only the wait for the response to start.
   * 60 000 unless given.
   */
  readonly idleTimeoutMs?: number;
  /**
   * How requests use the prompt cache: breakpoints on the tools, the system
   * prompt, the earlier turns and the last message, five-minute ones unless
   * `{ ttl: "1h" }` (the last always five minutes); `false` for none.
   * Five minutes unless given.
   */
  readonly promptCache?: PromptCaching;
}

/**
 * The SDK client's options (`apiKey` or `authToken`, `baseURL`, `maxRetries`,
 * `timeout`, `fetch`, …), passed through as given, or a client already made;
 * with either, how to stream. With no client options, the SDK reads
 * `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and `ANTHROPIC_BASE_URL`.
 */
export type AnthropicOptions = (ClientOptions | { readonly client: Anthropic }) &
  AnthropicStreaming;

/** How long a begun stream may go without an event unless `idleTimeoutMs` is given. */
export const IDLE_TIMEOUT_MS = 60_000;

/**
 * A {@link Model} that asks Claude through the Anthropic SDK. Each step's
 * request is laid out for the prompt cache (the tools, the system prompt
 * and the earlier turns first, each ending at a breakpoint, this turn
 * last), so a step reads what the one before it wrote. Steps stream: `onText` hears each
 * piece of text as it arrives (`onCode` each piece of a code execution's
 * code), and the step resolves at `message_stop` with the same message a
 * whole answer gives.
 *
 * @example
 * ```ts
 * const model = anthropic({ authToken: session.token, baseURL: "https://app.example/claude" });
 * const response = await model.step(request, { signal, onText: (piece) => show(piece) });
 * ```
 */
export const anthropic = (options: AnthropicOptions = {}): Model => {
  const { stream = true, idleTimeoutMs = IDLE_TIMEOUT_MS, promptCache = {}, ...rest } = options;
  const client = "client" in rest ? rest.client : new sdk.Anthropic(rest as ClientOptions);
  // Whole once a gateway refused to stream: kept for the life of this model.
  let streaming = stream;
  return {
    step: async (request, { signal, onText, onCode }) => {
      const params = toParams(request, promptCache);
      if (streaming) {
        try {
          return await streamed(client, params, { signal, onText, onCode, idleTimeoutMs });
        } catch (error) {
          if (!refusesToStream(error)) throw error;
          streaming = false;
        }
      }
      try {
        const response = await whole(client, params, signal);
        const text = textOf(response);
        if (text !== "") onText?.(text);
        return response;
      } catch (error) {
        throw toModelError(error, signal);
      }
    },
  };
};

/** A step answered as one JSON message; `stream: false` says so to any gateway on the way. */
const whole = async (
  client: Anthropic,
  params: ReturnType<typeof toParams>,
  signal: AbortSignal,
): Promise<ModelResponse> => {
  const message: unknown = await client.messages.create({ ...params, stream: false }, { signal });
  return toResponse(message);
};

/** A gateway's 422 that will not stream ("Streaming isn't proxied", …). */
const refusesToStream = (error: unknown): boolean =>
  error instanceof ModelError && error.status === 422 && /streaming/i.test(error.message);
