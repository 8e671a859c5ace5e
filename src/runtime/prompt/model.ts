/**
 * The model port: one Messages request per step. Messages and content blocks
 * are the Messages API's own wire shapes (a subset), so adapters pass them
 * through and the runtime needs no SDK.
 */
import { Data, Option, Predicate, Schema } from "effect";
import { clip } from "../clip.ts";
import type { Usage } from "../log/events.ts";

/** Text in a message: the model's words, or the user's. */
export type TextBlock = { readonly type: "text"; readonly text: string };
/**
 * The model calling one of the app's tools: `id` is the call's, `input` its
 * arguments as the model sent them. `caller` says who called in code mode
 * (direct, or code the model ran).
 */
export type ToolUseBlock = {
  readonly type: "tool_use";
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  readonly caller?: { readonly type: string; readonly tool_id?: string };
};
/** The answer to a {@link ToolUseBlock} of the same id: the outcome as text, `is_error` for a refusal or failure. */
export type ToolResultBlock = {
  readonly type: "tool_result";
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: boolean;
};
/** Other blocks (thinking, server tool use, code execution results) are kept as sent. */
export type OtherBlock = { readonly type: string; readonly [key: string]: unknown };
/** One block of a message's content, as the Messages API sends it. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | OtherBlock;

/** One message of the conversation sent to the model: the user's or the assistant's. */
export interface Message {
  readonly role: "user" | "assistant";
  readonly content: string | ReadonlyArray<ContentBlock>;
}

/** One of the app's tools as the Messages API takes it. */
export interface ClientTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
  /** Code mode: who may call it (`["direct", "code_execution_20260120"]`); direct only when absent. */
  readonly allowed_callers?: ReadonlyArray<string>;
  /** The model's input is constrained to `input_schema` (strict tool use); never with `allowed_callers` for code. */
  readonly strict?: boolean;
  /** Example inputs, each valid by `input_schema`: the command's `examples`. */
  readonly input_examples?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly [key: string]: unknown;
}

/** A tool Anthropic runs, such as code execution (`{ type: "code_execution_20260120", name: "code_execution" }`). */
export interface ServerTool {
  readonly type: string;
  readonly name: string;
}

/** A tool in a request: the app's own, or one Anthropic runs. */
export type ModelTool = ClientTool | ServerTool;

/**
 * Why the model stopped, as the Messages API says: `end_turn` when it
 * answered, `tool_use` when it called tools, `refusal` when it declined, or
 * a reason the API adds later.
 */
export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded"
  | (string & {});

/**
 * Why the model stopped, in more detail than the stop reason: the Messages
 * API's `stop_details`, today a refusal's (`type: "refusal"`).
 */
export interface StopDetails {
  /** What the details are of: `refusal`, or a kind the API adds later. */
  readonly type: "refusal" | (string & {});
  /**
   * A refusal's policy category (`cyber`, `bio`, `frontier_llm`,
   * `reasoning_extraction`, `general_harms`, or one added later), or null
   * when it maps to none.
   */
  readonly category: string | null;
  /**
   * The API's explanation for people, not guaranteed stable, or null when
   * it has none; cut at 1 000 characters.
   */
  readonly explanation: string | null;
}

/** The longest `StopDetails.explanation` kept. */
export const MAX_EXPLANATION = 1_000;
/** The longest `StopDetails.category` kept; the API's are one word. */
const MAX_CATEGORY = 64;

const WireStopDetails = Schema.Struct({
  type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)),
  category: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  explanation: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
});
const decodeStopDetails = Schema.decodeUnknownOption(WireStopDetails);

/**
 * The API's `stop_details` as {@link StopDetails}: its type, category and
 * explanation (other fields dropped, long text cut), or undefined when it is
 * null, absent or not such an object. It only explains the stop reason, so a
 * malformed one is left out rather than failing an answer that is whole.
 *
 * @example
 * ```ts
 * stopDetailsOf({ type: "refusal", category: "cyber", explanation: null });
 * // { type: "refusal", category: "cyber", explanation: null }
 * ```
 */
export const stopDetailsOf = (value: unknown): StopDetails | undefined =>
  Option.match(value == null ? Option.none() : decodeStopDetails(value), {
    onNone: () => undefined,
    onSome: ({ type, category, explanation }) => ({
      type,
      category: category === null ? null : clip(category, MAX_CATEGORY),
      explanation: explanation === null ? null : clip(explanation, MAX_EXPLANATION),
    }),
  });

/**
 * One step's request, as the window builds it: the model's name, the system
 * prompt, the conversation so far, the tools offered now, and `maxTokens`
 * (the host's `maxTokensPerStep`).
 */
export interface ModelRequest {
  readonly model: string;
  readonly system: string;
  readonly messages: ReadonlyArray<Message>;
  readonly tools: ReadonlyArray<ModelTool>;
  readonly maxTokens: number;
  /** The code-execution container to continue in, when a script is paused. */
  readonly container?: string;
}

/**
 * What a step resolves with: the whole message (however it was streamed),
 * why it stopped, and the tokens it used.
 */
export interface ModelResponse {
  readonly content: ReadonlyArray<ContentBlock>;
  readonly stopReason: StopReason;
  /** More on the stop reason, when the API gave any: a refusal's category and explanation. */
  readonly stopDetails?: StopDetails;
  readonly usage: Usage;
  /** The model that answered, as the API names it; the one asked for when absent. */
  readonly model?: string;
  readonly container?: { readonly id: string; readonly expiresAt?: string };
}

/** What a model is told besides the request: the signal to stop on, and where to stream text and code. */
export interface StepOptions {
  /** Aborted by Stop. */
  readonly signal: AbortSignal;
  /** Text as it is written, when the model streams. */
  readonly onText?: (piece: string) => void;
  /**
   * Code mode: the code of a code execution (`server_tool_use` named
   * `code_execution`, id `toolId`) as it is written, when the model streams:
   * `""` when its block starts, then each piece of the code, decoded from its
   * input's JSON. For display only: the response's block still carries the
   * whole code.
   */
  readonly onCode?: (toolId: string, piece: string) => void;
}

/**
 * A model: one request per step, streamed or whole, resolving to the full
 * message. Failures reject with a {@link ModelError}.
 */
export interface Model {
  readonly step: (request: ModelRequest, options: StepOptions) => Promise<ModelResponse>;
}

/** Why a model step failed, in terms the window can show. */
export type ModelErrorKind =
  | "overloaded"
  | "rateLimited"
  | "auth"
  | "invalidRequest"
  | "server"
  | "connection"
  | "timeout"
  | "decode"
  | "aborted";

/**
 * A model step that failed. `status` is the HTTP status when there was one.
 * A model rejects with it for a failure the user can be told of: the turn
 * ends `Failed` with its message and `kind`, and the window stays usable
 * (any other rejection is taken for a bug and crashes the window).
 *
 * @example
 * ```ts
 * // A model behind the company's own gateway.
 * const gatewayModel: Model = {
 *   step: async (request, { signal }) => {
 *     const response = await fetch("https://llm.internal.example/step", {
 *       method: "POST",
 *       body: JSON.stringify(request),
 *       signal,
 *     });
 *     if (response.status === 429)
 *       throw new ModelError({ kind: "rateLimited", message: "the gateway is busy", status: 429 });
 *     if (!response.ok)
 *       throw new ModelError({ kind: "server", message: await response.text(), status: response.status });
 *     return (await response.json()) as ModelResponse;
 *   },
 * };
 * ```
 */
export class ModelError extends Data.TaggedError("ModelError")<{
  readonly kind: ModelErrorKind;
  readonly message: string;
  readonly status?: number;
}> {}

/**
 * Whether a step's rejection is a {@link ModelError}, which fails the turn
 * (anything else is a bug, and crashes the window). An instance, or one that
 * kept its tag and message but lost its class on the way (a plain
 * `{ _tag: "ModelError", message }`, as a model stub may reject with).
 */
export const isModelError = (error: unknown): error is Pick<ModelError, "_tag" | "message"> =>
  error instanceof ModelError ||
  (Predicate.isTagged(error, "ModelError") &&
    Predicate.hasProperty(error, "message") &&
    typeof error.message === "string");

/**
 * What a failed step's log event records of its error beside the message:
 * the {@link ModelError}'s kind and status, when it has them (a stub's plain
 * `{ _tag: "ModelError", message }` has neither), so a panel can say in
 * words what probably went wrong.
 *
 * @example
 * ```ts
 * failureOf(new ModelError({ kind: "auth", message: "invalid x-api-key", status: 401 }));
 * // { kind: "auth", status: 401 }
 * ```
 */
export const failureOf = (error: unknown): { readonly kind?: string; readonly status?: number } => {
  if (!isModelError(error)) return {};
  const { kind, status } = error as { readonly kind?: unknown; readonly status?: unknown };
  return {
    ...(typeof kind === "string" && kind !== "" ? { kind } : {}),
    ...(Number.isInteger(status) ? { status: status as number } : {}),
  };
};

/** The kind of an API error by its HTTP status (and `error.type`), as the Messages API uses them. */
export const kindOfStatus = (status: number | undefined, type?: string | null): ModelErrorKind => {
  if (status === 529 || type === "overloaded_error") return "overloaded";
  if (status === undefined) return kindOfType(type ?? null);
  if (status === 429) return "rateLimited";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status >= 500) return "server";
  return "invalidRequest";
};

/** The kind of an error with no status: an `error` event inside a stream names only its type. */
export const kindOfType = (type: string | null): ModelErrorKind => {
  switch (type) {
    case "overloaded_error":
      return "overloaded";
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

/** The text of a message's text blocks, joined. */
export const textOf = (content: ReadonlyArray<ContentBlock>): string =>
  content
    .filter((b): b is TextBlock => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("");
