/**
 * Translations between the runtime's model port and the Messages API as the
 * SDK gives it: requests to parameters, messages to responses, failures to
 * {@link ModelError}s. Shared by the whole and the streamed step.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { APIError } from "@anthropic-ai/sdk";
import type {
  ContentBlock,
  ModelErrorKind,
  ModelRequest,
  ModelResponse,
} from "../../runtime/prompt/model.ts";
import { kindOfStatus, kindOfType, ModelError, stopDetailsOf } from "../../runtime/prompt/model.ts";
import { sdk } from "./anthropicSdk.ts";
import { type PromptCaching, withCacheBreakpoints } from "./cacheLayout.ts";

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/**
 * A model request as the SDK's parameters, with its prompt cache
 * breakpoints placed ({@link withCacheBreakpoints}; five-minute ones unless
 * `caching` says otherwise).
 */
export const toParams = (request: ModelRequest, caching: PromptCaching = {}): CreateParams =>
  withCacheBreakpoints(bareParams(request), caching);

const bareParams = (request: ModelRequest): CreateParams => ({
  model: request.model,
  max_tokens: request.maxTokens,
  // The API refuses an empty text block, so an empty system prompt is left out.
  ...(request.system === ""
    ? {}
    : {
        system: [{ type: "text", text: request.system }],
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
  const { content, stop_reason, stop_details, usage, container, model } =
    message as Partial<Anthropic.Message>;
  if (!Array.isArray(content) || typeof stop_reason !== "string" || usage === undefined) {
    throw new ModelError({
      kind: "decode",
      message: "the response has no content, stop reason or usage",
    });
  }
  const stopDetails = stopDetailsOf(stop_details);
  const serverToolUses = content.filter(
    (block: { readonly type?: unknown }) => block.type === "server_tool_use",
  ).length;
  return {
    content: content as ReadonlyArray<ContentBlock>,
    stopReason: stop_reason,
    ...(stopDetails === undefined ? {} : { stopDetails }),
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      ...(typeof usage.cache_read_input_tokens === "number"
        ? { cacheReadTokens: usage.cache_read_input_tokens }
        : {}),
      ...(typeof usage.cache_creation_input_tokens === "number"
        ? { cacheWriteTokens: usage.cache_creation_input_tokens }
        : {}),
      ...(typeof usage.cache_creation?.ephemeral_1h_input_tokens === "number" &&
      usage.cache_creation.ephemeral_1h_input_tokens > 0
        ? { cacheWrite1hTokens: usage.cache_creation.ephemeral_1h_input_tokens }
        : {}),
      ...(serverToolUses > 0 ? { serverToolUses } : {}),
    },
    ...(typeof model === "string" && model !== "" ? { model } : {}),
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
  if (signal?.aborted || error instanceof sdk.APIUserAbortError) {
    return new ModelError({ kind: "aborted", message: "the step was stopped" });
  }
  if (error instanceof sdk.APIConnectionTimeoutError)
    return new ModelError({ kind: "timeout", message });
  if (error instanceof sdk.APIConnectionError)
    return new ModelError({ kind: "connection", message });
  if (error instanceof sdk.APIError) {
    const kind = kindOf(error);
    const apiMessage = codeModeRefused(error.status, error.apiMessage ?? message);
    // An overload inside a stream has no status; it is the same 529 as before one.
    const status = error.status ?? (kind === "overloaded" ? 529 : undefined);
    return new ModelError(
      status === undefined ? { kind, message: apiMessage } : { kind, message: apiMessage, status },
    );
  }
  // Thrown before sending, e.g. "Streaming is required for operations that
  // may take longer than 10 minutes" when max_tokens is large (over ~21 333).
  if (error instanceof sdk.AnthropicError)
    return new ModelError({ kind: "invalidRequest", message });
  if (error instanceof SyntaxError) return new ModelError({ kind: "decode", message });
  // A body cut off after the headers (undici's "terminated") and the like.
  return new ModelError({ kind: "connection", message });
};

/**
 * A backend that will not run code mode answers 422 naming the code execution
 * tool; the user is told so in words, since asking again cannot help.
 */
const codeModeRefused = (status: number | undefined, message: string): string => {
  const tool = status === 422 ? /\bcode_execution_\d{8}\b/.exec(message)?.[0] : undefined;
  return tool === undefined
    ? message
    : `This server doesn't allow code mode (${tool} is refused by the backend).`;
};

const kindOf = (error: APIError): ModelErrorKind =>
  error instanceof sdk.OverloadedError ? "overloaded" : kindOfStatus(error.status, error.type);

/**
 * An `event: error` after HTTP 200 (its data is the API's error body): the
 * API's error by its type, an overload as a 529 like the one before a stream.
 */
export const toStreamEventError = (data: string): ModelError => {
  let error: { type?: unknown; message?: unknown } = {};
  try {
    error = (JSON.parse(data) as { error?: typeof error }).error ?? {};
  } catch {}
  const type = typeof error.type === "string" ? error.type : "api_error";
  const message = typeof error.message === "string" ? error.message : data;
  if (type === "overloaded_error") {
    return new ModelError({ kind: "overloaded", message, status: 529 });
  }
  return new ModelError({ kind: kindOfType(type), message });
};

/** The text of a response's text blocks, joined: what a whole answer tells `onText` at once. */
export const textOf = (response: ModelResponse): string => {
  let text = "";
  for (const block of response.content) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
  }
  return text;
};
