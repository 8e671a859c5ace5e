/**
 * The model port over `@anthropic-ai/sdk`: one `messages.create` per step.
 * The SDK does the HTTP, the auth header and the retries (2 by default, on
 * 408/409/429/5xx before the response starts); this file only translates
 * requests, responses and errors.
 */
import Anthropic, {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ClientOptions,
  OverloadedError,
} from "@anthropic-ai/sdk";
import type {
  ContentBlock,
  Model,
  ModelErrorKind,
  ModelRequest,
  ModelResponse,
} from "../../runtime/model.ts";
import { ModelError } from "../../runtime/model.ts";

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/**
 * The SDK client's options (`apiKey` or `authToken`, `baseURL`, `maxRetries`,
 * `timeout`, `fetch`, …), passed through as given, or a client already made.
 * With neither, the SDK reads `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and
 * `ANTHROPIC_BASE_URL`.
 */
export type AnthropicOptions = ClientOptions | { readonly client: Anthropic };

/**
 * A {@link Model} that asks Claude through the Anthropic SDK. Each step sends
 * the system prompt as one cached block, so later turns read it (and the
 * tools before it) from the prompt cache.
 *
 * @example
 * ```ts
 * const model = anthropic({ authToken: session.token, baseURL: "https://app.example/claude" });
 * const response = await model.step(request, { signal });
 * ```
 */
export const anthropic = (options: AnthropicOptions = {}): Model => {
  const client = "client" in options ? options.client : new Anthropic(options);
  return {
    step: async (request, { signal }) => {
      try {
        return await whole(client, toParams(request), signal);
      } catch (error) {
        throw toModelError(error, signal);
      }
    },
  };
};

/** A step answered as one JSON message. (The streamed path goes beside it.) */
const whole = async (
  client: Anthropic,
  params: CreateParams,
  signal: AbortSignal,
): Promise<ModelResponse> => {
  const message: unknown = await client.messages.create(params, { signal });
  return toResponse(message);
};

/** A model request as the SDK's parameters. */
export const toParams = (request: ModelRequest): CreateParams => ({
  model: request.model,
  max_tokens: request.maxTokens,
  // The API refuses an empty text block, so an empty system prompt is left out.
  ...(request.system === ""
    ? {}
    : {
        system: [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }],
      }),
  // The runtime's messages and tools are the API's own shapes (a subset, with
  // unknown blocks kept as sent), so they go through as they are.
  messages: request.messages as unknown as CreateParams["messages"],
  ...(request.tools.length === 0
    ? {}
    : { tools: request.tools as unknown as NonNullable<CreateParams["tools"]> }),
  ...(request.container === undefined ? {} : { container: request.container }),
});

/** The API's message as a model response; what is not a message is a decode error. */
export const toResponse = (message: unknown): ModelResponse => {
  if (typeof message !== "object" || message === null) {
    throw new ModelError({ kind: "decode", message: "the response is not a JSON message" });
  }
  const { content, stop_reason, usage, container } = message as Partial<Anthropic.Message>;
  if (!Array.isArray(content) || typeof stop_reason !== "string" || usage === undefined) {
    throw new ModelError({
      kind: "decode",
      message: "the response has no content, stop reason or usage",
    });
  }
  return {
    content: content as ReadonlyArray<ContentBlock>,
    stopReason: stop_reason,
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      ...(typeof usage.cache_read_input_tokens === "number"
        ? { cacheReadTokens: usage.cache_read_input_tokens }
        : {}),
      ...(typeof usage.cache_creation_input_tokens === "number"
        ? { cacheWriteTokens: usage.cache_creation_input_tokens }
        : {}),
    },
    ...(container
      ? {
          container: {
            id: container.id,
            ...(container.expires_at ? { expiresAt: container.expires_at } : {}),
          },
        }
      : {}),
  };
};

/** What any failure of a step means to the window, with the API's status and message. */
export const toModelError = (error: unknown, signal?: AbortSignal): ModelError => {
  if (error instanceof ModelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // Checked first: an abort can surface as an abort error, a connection error
  // or a broken body read, depending on when it lands.
  if (signal?.aborted || error instanceof APIUserAbortError) {
    return new ModelError({ kind: "aborted", message: "the step was stopped" });
  }
  if (error instanceof APIConnectionTimeoutError)
    return new ModelError({ kind: "timeout", message });
  if (error instanceof APIConnectionError) return new ModelError({ kind: "connection", message });
  if (error instanceof APIError) {
    const kind = kindOf(error);
    const apiMessage = error.apiMessage ?? message;
    return new ModelError(
      error.status === undefined
        ? { kind, message: apiMessage }
        : { kind, message: apiMessage, status: error.status },
    );
  }
  // Thrown before sending, e.g. "Streaming is required for operations that
  // may take longer than 10 minutes" when max_tokens is large (over ~21 333).
  if (error instanceof AnthropicError) return new ModelError({ kind: "invalidRequest", message });
  if (error instanceof SyntaxError) return new ModelError({ kind: "decode", message });
  // A body cut off after the headers (undici's "terminated") and the like.
  return new ModelError({ kind: "connection", message });
};

const kindOf = (error: APIError): ModelErrorKind => {
  const { status, type } = error;
  if (status === 529 || error instanceof OverloadedError || type === "overloaded_error") {
    return "overloaded";
  }
  if (status === undefined) return kindOfType(type);
  if (status === 429) return "rateLimited";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status >= 500) return "server";
  return "invalidRequest";
};

/** An error with no status: an `error` event inside a stream names only its type. */
const kindOfType = (type: string | null): ModelErrorKind => {
  switch (type) {
    case "rate_limit_error":
      return "rateLimited";
    case "authentication_error":
    case "permission_error":
      return "auth";
    case "invalid_request_error":
    case "not_found_error":
    case "request_too_large":
      return "invalidRequest";
    case "timeout_error":
      return "timeout";
    default:
      return "server";
  }
};
